# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_aletheia_global_optspecs
    string join \n json h/help V/version
end

function __fish_aletheia_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_aletheia_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_aletheia_using_subcommand
    set -l cmd (__fish_aletheia_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c aletheia -n "__fish_aletheia_needs_command" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aletheia -n "__fish_aletheia_needs_command" -s V -l version -d 'Print version'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "hook" -d 'Run as a host hook: read one JSON payload on stdin (always exits 0)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "mcp" -d 'Serve the MCP tools over stdio'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "server" -d 'Serve the REST API, MCP over HTTP and the dashboard on a loopback port, with the worker'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "hub" -d 'Serve one store to several machines or a team over HTTP, each request with a token'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "sync" -d 'Push this store\'s new memories and changes to a hub, and pull what it has from others'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "mcp-link" -d 'The hub\'s tokens: create, list, revoke'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "connect" -d 'Show what `install` would write for a host (hooks and MCP entry); writes nothing'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "install" -d 'Register the hooks and the MCP server with a host (with --write)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "uninstall" -d 'Remove what `install` added to a host\'s configuration'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "rules" -d 'Standing rules: list, add, confirm, sync (into each tool\'s rule file)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "compress" -d 'Turn finished sessions into facts and summaries now (or keep a worker running)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "review" -d 'What waits for you: clients\' proposals and facts that disagree. list, accept, reject'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "trust" -d 'How far each connected client\'s writes are trusted: read, propose or write'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "list" -d 'Named work-state lists: read, write'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "save" -d 'Store one note'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "capture" -d 'Store one memory read from stdin'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "search" -d 'Search memories'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "timeline" -d 'Show the memories before and after one memory'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "observations" -d 'Show memories in full by id'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "why" -d 'Where a memory or fact came from: the fact, its memory, the original message, the session, and the hook event or call that stored it, with times'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "inspect" -d 'One memory with every text it held, newest first: who wrote each and when; the memories it replaced or that replaced it; its feedback'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "edit" -d 'Replace a note\'s text (and title); the old text is kept as a version'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "feedback" -d 'Say what a memory is worth: --favourite, --unfavourite, --positive or --negative'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "drift" -d 'The memories whose files changed or went away since they were written, in this folder'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "verify" -d 'Check the signed history: every chain and signature, and that nothing was changed behind aletheia\'s back'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "facts" -d 'The facts about a subject and how they changed (subjects matched by words), or every subject with its count'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "dismiss" -d 'Hide a memory (or fact) from search and context without deleting it'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "restore" -d 'Undo dismiss'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "context" -d 'Print the session-start context block'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "import" -d 'Import memories from JSONL (a file or stdin)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "backfill" -d 'Store the prompts and summaries of past sessions from a host\'s transcripts'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "export" -d 'Export every memory as JSONL to stdout'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "scrub" -d 'Redact stored rows again with the current rules'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "doctor" -d 'Report the store, the spool, captures and host hooks, and what to fix'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "drain" -d 'Bring everything spooled into the store now'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "redact" -d 'Print stdin as it would be stored, secrets redacted'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "model" -d 'The local embedding model for semantic search'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "index" -d 'Give every memory a vector for semantic search (needs the model: aletheia model fetch)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "completions" -d 'Print a shell\'s completion script (bash, zsh, fish, powershell, elvish)'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "man" -d 'Print the manual page (roff: `aletheia man | man -l -`), or write one page per command'
complete -c aletheia -n "__fish_aletheia_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand hook" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand hook" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand server" -l port -d 'The port (ALETHEIA_PORT; default 7749; 0 picks a free one, printed at start)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand server" -l bind -d 'The address to listen on. Anything but loopback needs ALETHEIA_API_KEY of 24+ characters' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand server" -l no-worker -d 'Do not run the compression worker'
complete -c aletheia -n "__fish_aletheia_using_subcommand server" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand server" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l port -d 'The port (default 7750; 0 picks a free one, printed at start)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l bind -d 'The address to listen on. Anything but loopback needs --tls-cert and --tls-key, or --behind-proxy' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l tls-cert -d 'The certificate chain to serve TLS with (PEM, the leaf first)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l tls-key -d 'The certificate\'s private key (PEM)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l behind-proxy -d 'A proxy or tunnel in front terminates TLS (Caddy, nginx, Tailscale, cloudflared): serve plain HTTP to it and take the public name it forwards as Host'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -f -a "audit" -d 'List the audited tool calls, oldest first'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -f -a "migrate" -d 'Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end)'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -f -a "keys" -d 'List the machine keys the hub pinned for the machines\' signed histories, or forget one machine\'s pin so that its next sync pins the key it comes with'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and not __fish_seen_subcommand_from audit migrate keys help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -l since -d 'Only calls since this time (YYYY-MM-DD, yesterday, 2w, 3 days ago, ...)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -l token -d 'Only calls made with this token (its id, from mcp-link list)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -l limit -d 'At most this many rows' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from audit" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from migrate" -l from -d 'The SQLite hub to copy from (read only)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from migrate" -l to -d 'The PostgreSQL database to copy into: postgres://user@host/dbname' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from migrate" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from migrate" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from keys" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from keys" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from keys" -l forget -d 'The sync machine id whose pinned key to forget (as `aletheia hub keys` lists it, and a refused sync names it), after its machine.key was replaced on purpose' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from keys" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from keys" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "audit" -d 'List the audited tool calls, oldest first'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "migrate" -d 'Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end)'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "keys" -d 'List the machine keys the hub pinned for the machines\' signed histories, or forget one machine\'s pin so that its next sync pins the key it comes with'
complete -c aletheia -n "__fish_aletheia_using_subcommand hub; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -l hub -d 'The hub\'s address (http://host:7750 or https://...); default: the one `sync setup` saved' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -l token -d 'A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default: ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -f -a "setup" -d 'Remember the hub and its token, so `aletheia sync` and the server\'s worker need no flags'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -f -a "status" -d 'What is waiting to be pushed, how far this store has pulled, and the last sync'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -f -a "conflicts" -d 'The versions the hub kept when two machines changed the same item between syncs'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and not __fish_seen_subcommand_from setup status conflicts help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from setup" -l hub -d 'The hub\'s address (http://host:7750 or https://...); default: the one `sync setup` saved' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from setup" -l token -d 'A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default: ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from setup" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from setup" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from status" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from conflicts" -l hub -d 'The hub\'s address (http://host:7750 or https://...); default: the one `sync setup` saved' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from conflicts" -l token -d 'A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default: ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from conflicts" -l limit -d 'At most this many, newest first' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from conflicts" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from conflicts" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from help" -f -a "setup" -d 'Remember the hub and its token, so `aletheia sync` and the server\'s worker need no flags'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from help" -f -a "status" -d 'What is waiting to be pushed, how far this store has pulled, and the last sync'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from help" -f -a "conflicts" -d 'The versions the hub kept when two machines changed the same item between syncs'
complete -c aletheia -n "__fish_aletheia_using_subcommand sync; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and not __fish_seen_subcommand_from create list revoke help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and not __fish_seen_subcommand_from create list revoke help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and not __fish_seen_subcommand_from create list revoke help" -f -a "create" -d 'Make a token; it is printed once, with the entry to paste into each host'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and not __fish_seen_subcommand_from create list revoke help" -f -a "list" -d 'List the tokens (never their secrets)'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and not __fish_seen_subcommand_from create list revoke help" -f -a "revoke" -d 'Revoke a token: every request with it is refused from now on'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and not __fish_seen_subcommand_from create list revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l projects -d 'The projects it may touch, separated by commas; default: every project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l scope -d 'mcp or read: the read tools; sync: every tool and sync; admin: also tokens and audit' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l label -d 'A name to know it by (a machine, a person)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l expires -d 'When it stops working: a count of hours, days or weeks (12h, 30d, 8w); default never' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l url -d 'The hub\'s MCP address, for the entries printed (default http://127.0.0.1:7750/mcp)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from list" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from list" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from revoke" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from revoke" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from revoke" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from help" -f -a "create" -d 'Make a token; it is printed once, with the entry to paste into each host'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the tokens (never their secrets)'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke a token: every request with it is refused from now on'
complete -c aletheia -n "__fish_aletheia_using_subcommand mcp-link; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand connect" -l project -d 'The project\'s files (in the working directory) instead of the user\'s'
complete -c aletheia -n "__fish_aletheia_using_subcommand connect" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand connect" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand install" -l project -d 'The project\'s files (at the git root of the working directory) instead of the user\'s'
complete -c aletheia -n "__fish_aletheia_using_subcommand install" -l write -d 'Write the files; without it, only show what would change'
complete -c aletheia -n "__fish_aletheia_using_subcommand install" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand install" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand uninstall" -l project -d 'The project\'s files (at the git root of the working directory) instead of the user\'s'
complete -c aletheia -n "__fish_aletheia_using_subcommand uninstall" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -f -a "list" -d 'List the enabled rules'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -f -a "add" -d 'Add a standing rule: for every project unless --scope-tier says otherwise'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -f -a "confirm" -d 'Record that a rule was re-checked'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -f -a "sync" -d 'Write the enabled rules into each connected tool\'s rule file at the project root'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and not __fish_seen_subcommand_from list add confirm sync help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -l when -d 'The situation; default: always' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -l scope-tier -d 'everywhere (the default, even inside a project), project or situation' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -l scope-name -d 'The project or situation name (required with project or situation)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -l evidence-memory -d 'A memory id the rule rests on (repeatable)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -l evidence-fact -d 'A fact id the rule rests on (repeatable)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from confirm" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from confirm" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from sync" -l tool -d 'Only this tool\'s file, even if it is not connected' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from sync" -l project -d 'Whose rules; default: the working directory\'s project (the only one allowed)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from sync" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from sync" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the enabled rules'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a standing rule: for every project unless --scope-tier says otherwise'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from help" -f -a "confirm" -d 'Record that a rule was re-checked'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from help" -f -a "sync" -d 'Write the enabled rules into each connected tool\'s rule file at the project root'
complete -c aletheia -n "__fish_aletheia_using_subcommand rules; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand compress" -l project -d 'Also compress this project\'s own notes (those saved outside a session)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand compress" -l daemon -d 'Keep a worker running (a tick every 2 s) until Ctrl-C, SIGINT or SIGTERM'
complete -c aletheia -n "__fish_aletheia_using_subcommand compress" -l status -d 'Show the queue and the newest jobs instead'
complete -c aletheia -n "__fish_aletheia_using_subcommand compress" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand compress" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -l hub-db -d 'The hub\'s SQLite store, to work on it instead of this machine\'s' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -l database -d 'The hub\'s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine\'s store' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -f -a "list" -d 'List what waits: clients\' proposals, then facts that disagree'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -f -a "accept" -d 'Accept a proposal (pID: it is written as the client asked) or keep a fact under review (FACT_ID: the fact it disagreed with is closed and kept as history)'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -f -a "reject" -d 'Reject a proposal (pID: nothing it asked for is written) or a fact under review (FACT_ID: the fact it disagreed with stays current)'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and not __fish_seen_subcommand_from list accept reject help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from list" -l project -d 'Only this project (default: every project)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from list" -l hub-db -d 'The hub\'s SQLite store, to work on it instead of this machine\'s' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from list" -l database -d 'The hub\'s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine\'s store' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from accept" -l hub-db -d 'The hub\'s SQLite store, to work on it instead of this machine\'s' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from accept" -l database -d 'The hub\'s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine\'s store' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from accept" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from accept" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from reject" -l reason -d 'Why, kept with a rejected proposal' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from reject" -l hub-db -d 'The hub\'s SQLite store, to work on it instead of this machine\'s' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from reject" -l database -d 'The hub\'s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine\'s store' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from reject" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from reject" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from help" -f -a "list" -d 'List what waits: clients\' proposals, then facts that disagree'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from help" -f -a "accept" -d 'Accept a proposal (pID: it is written as the client asked) or keep a fact under review (FACT_ID: the fact it disagreed with is closed and kept as history)'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from help" -f -a "reject" -d 'Reject a proposal (pID: nothing it asked for is written) or a fact under review (FACT_ID: the fact it disagreed with stays current)'
complete -c aletheia -n "__fish_aletheia_using_subcommand review; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand trust" -l hub-db -d 'The hub\'s SQLite store, a file (made on first use)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand trust" -l database -d 'The hub\'s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand trust" -l reset -d 'Forget the client\'s level: it writes memories directly and proposes rules again'
complete -c aletheia -n "__fish_aletheia_using_subcommand trust" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand trust" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and not __fish_seen_subcommand_from read write help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and not __fish_seen_subcommand_from read write help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and not __fish_seen_subcommand_from read write help" -f -a "read" -d 'Print a list\'s items as JSON; a list never written exits 1'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and not __fish_seen_subcommand_from read write help" -f -a "write" -d 'Replace a list\'s items with the JSON array on stdin'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and not __fish_seen_subcommand_from read write help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from read" -l project -d 'Project key; default: the working directory\'s project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from read" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from read" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from write" -l project -d 'Project key; default: the working directory\'s project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from write" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from write" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "read" -d 'Print a list\'s items as JSON; a list never written exits 1'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "write" -d 'Replace a list\'s items with the JSON array on stdin'
complete -c aletheia -n "__fish_aletheia_using_subcommand list; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -l title -d 'Title; default: the first 100 characters of the text' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -l project -d 'Project key; default: the working directory\'s project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -l type -d 'decision, gotcha, bugfix, feature, refactor, change, discovery or note' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -l tool -d 'The tool to record as the source; default: ALETHEIA_TOOL, else cli' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -l pinned -d 'List it under Pinned in the session-start context'
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand save" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l kind -d 'prompt, event, observation, summary or note' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l title -d 'Title; default: the first 100 characters of the text' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l project -d 'Project key; default: the working directory\'s project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l type -d 'decision, gotcha, bugfix, feature, refactor, change, discovery or note' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l tool -d 'The tool to record as the source; default: ALETHEIA_TOOL, else cli' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l pinned -d 'List it under Pinned in the session-start context'
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand capture" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l file -d 'An exact file path instead of words' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l project -d 'Only this project (default: every project)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l type -d 'Only memories of this type: decision, gotcha, bugfix, feature, refactor, change, discovery or note' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l kind -d 'Only memories of this kind: prompt, event, observation, summary or note' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l since -d 'A date, date-time, relative time (yesterday, 3 days ago, 2w) or epoch milliseconds' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l until -d 'Like --since; a bare date includes that day' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l as-of -d 'Answer as memory stood then (a date, date-time, relative time or epoch milliseconds): memories said or done later, later edits and later replacements are left out. Matching is on today\'s words' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l older-than-days -d 'Only results older than this many days' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l limit -d '1 to 100 (default 20)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l offset -d 'Hits to skip, for the next page: with --limit 20, --offset 20 shows hits 21 to 40 (default 0)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l order -d 'relevance, date_desc or date_asc' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l file-suffix -d 'With --file: match paths that end with the text'
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l raw -d 'Pass the query to SQLite FTS5 as written'
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l semantic -d 'Also search by meaning with the local embedding model, fused with the words. Off by default on the command line: loading the model costs more than a keyword search'
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand search" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -l anchor -d 'A memory id from search; takes priority over --query. An unknown or dismissed one (or one outside --project) exits 1' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -l query -d 'Words whose top hit is the anchor; when nothing matches, that is said and it exits 0' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -l project -d 'Limit the anchor lookup and the neighbours to one project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -l before -d 'Rows before the anchor, 0 to 50 (default 5)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -l after -d 'Rows after the anchor, 0 to 50 (default 5)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand timeline" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand observations" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand observations" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand why" -l type -d 'memory or fact' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand why" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand why" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand inspect" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand inspect" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand edit" -l title -d 'The new title (default: the first 100 characters of the text)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand edit" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand edit" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand feedback" -l favourite -d 'Mark it a favourite: lifted a little in search, and never left out of the session-start block for not-helpful votes'
complete -c aletheia -n "__fish_aletheia_using_subcommand feedback" -l unfavourite -d 'Take the favourite mark away'
complete -c aletheia -n "__fish_aletheia_using_subcommand feedback" -l positive -d 'It helped'
complete -c aletheia -n "__fish_aletheia_using_subcommand feedback" -l negative -d 'It did not help: lowered a little in search; more of these than helpful votes leave it out of the session-start block'
complete -c aletheia -n "__fish_aletheia_using_subcommand feedback" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand feedback" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand drift" -l project -d 'The project; it must be this folder\'s (the default)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand drift" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand drift" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand verify" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand verify" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -l project -d 'Only this project (default: every project)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -l predicate -d 'Only facts with this predicate' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -l as-of -d 'Facts valid at this time (a date, date-time, relative time or epoch milliseconds)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -l limit -d 'With no subject: how many subjects to list, 1 to 100 (default 20)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -l include-superseded -d 'Also list replaced facts (with no subject: count them too)'
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand facts" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand dismiss" -l type -d 'memory, observation, fact or episode' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand dismiss" -l reason -d 'Why; kept in the audit trail, cut to 300 characters' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand dismiss" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand dismiss" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand restore" -l type -d 'memory, observation, fact or episode' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand restore" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand restore" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand context" -l project -d 'Project key; default: the working directory\'s project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand context" -l limit -d 'Recent unpinned memories to list, 1 to 100 (default 20)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand context" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand context" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand import" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand import" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand backfill" -l since -d 'Only what was said since this time (YYYY-MM-DD, yesterday, 2w, 3 days ago, ...)' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand backfill" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand backfill" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand export" -l project -d 'Only this project' -r
complete -c aletheia -n "__fish_aletheia_using_subcommand export" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand export" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand scrub" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand scrub" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand doctor" -l rebuild-index -d 'Rebuild the search index from the memories, then report'
complete -c aletheia -n "__fish_aletheia_using_subcommand doctor" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand drain" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand drain" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand redact" -l check -d 'Only check the rule file named by ALETHEIA_REDACT_RULES and report how many rules it has'
complete -c aletheia -n "__fish_aletheia_using_subcommand redact" -l explain -d 'List which rule matched where (line, column, length), never the secret itself'
complete -c aletheia -n "__fish_aletheia_using_subcommand redact" -l rules -d 'List the rules: each built-in rule\'s name and what it catches, then the user\'s'
complete -c aletheia -n "__fish_aletheia_using_subcommand redact" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand redact" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and not __fish_seen_subcommand_from fetch help" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and not __fish_seen_subcommand_from fetch help" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and not __fish_seen_subcommand_from fetch help" -f -a "fetch" -d 'Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB each, from their public home'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and not __fish_seen_subcommand_from fetch help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and __fish_seen_subcommand_from fetch" -l dir -d 'The models folder to fill, one subfolder per model (default: ALETHEIA_MODEL_DIR, else model/ in the data directory)' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and __fish_seen_subcommand_from fetch" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and __fish_seen_subcommand_from fetch" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "fetch" -d 'Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB each, from their public home'
complete -c aletheia -n "__fish_aletheia_using_subcommand model; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand index" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand index" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand completions" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand completions" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand man" -l dir -d 'Write aletheia.1 and a page per subcommand (aletheia-search.1, ...) into this folder' -r -F
complete -c aletheia -n "__fish_aletheia_using_subcommand man" -l json -d 'Print the result as JSON (times in UTC epoch milliseconds) instead of text'
complete -c aletheia -n "__fish_aletheia_using_subcommand man" -s h -l help -d 'Print help'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "hook" -d 'Run as a host hook: read one JSON payload on stdin (always exits 0)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "mcp" -d 'Serve the MCP tools over stdio'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "server" -d 'Serve the REST API, MCP over HTTP and the dashboard on a loopback port, with the worker'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "hub" -d 'Serve one store to several machines or a team over HTTP, each request with a token'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "sync" -d 'Push this store\'s new memories and changes to a hub, and pull what it has from others'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "mcp-link" -d 'The hub\'s tokens: create, list, revoke'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "connect" -d 'Show what `install` would write for a host (hooks and MCP entry); writes nothing'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "install" -d 'Register the hooks and the MCP server with a host (with --write)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "uninstall" -d 'Remove what `install` added to a host\'s configuration'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "rules" -d 'Standing rules: list, add, confirm, sync (into each tool\'s rule file)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "compress" -d 'Turn finished sessions into facts and summaries now (or keep a worker running)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "review" -d 'What waits for you: clients\' proposals and facts that disagree. list, accept, reject'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "trust" -d 'How far each connected client\'s writes are trusted: read, propose or write'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "list" -d 'Named work-state lists: read, write'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "save" -d 'Store one note'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "capture" -d 'Store one memory read from stdin'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "search" -d 'Search memories'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "timeline" -d 'Show the memories before and after one memory'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "observations" -d 'Show memories in full by id'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "why" -d 'Where a memory or fact came from: the fact, its memory, the original message, the session, and the hook event or call that stored it, with times'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "inspect" -d 'One memory with every text it held, newest first: who wrote each and when; the memories it replaced or that replaced it; its feedback'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "edit" -d 'Replace a note\'s text (and title); the old text is kept as a version'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "feedback" -d 'Say what a memory is worth: --favourite, --unfavourite, --positive or --negative'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "drift" -d 'The memories whose files changed or went away since they were written, in this folder'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "verify" -d 'Check the signed history: every chain and signature, and that nothing was changed behind aletheia\'s back'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "facts" -d 'The facts about a subject and how they changed (subjects matched by words), or every subject with its count'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "dismiss" -d 'Hide a memory (or fact) from search and context without deleting it'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "restore" -d 'Undo dismiss'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "context" -d 'Print the session-start context block'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "import" -d 'Import memories from JSONL (a file or stdin)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "backfill" -d 'Store the prompts and summaries of past sessions from a host\'s transcripts'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "export" -d 'Export every memory as JSONL to stdout'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "scrub" -d 'Redact stored rows again with the current rules'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "doctor" -d 'Report the store, the spool, captures and host hooks, and what to fix'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "drain" -d 'Bring everything spooled into the store now'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "redact" -d 'Print stdin as it would be stored, secrets redacted'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "model" -d 'The local embedding model for semantic search'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "index" -d 'Give every memory a vector for semantic search (needs the model: aletheia model fetch)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "completions" -d 'Print a shell\'s completion script (bash, zsh, fish, powershell, elvish)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "man" -d 'Print the manual page (roff: `aletheia man | man -l -`), or write one page per command'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and not __fish_seen_subcommand_from hook mcp server hub sync mcp-link connect install uninstall rules compress review trust list save capture search timeline observations why inspect edit feedback drift verify facts dismiss restore context import backfill export scrub doctor drain redact model index completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "audit" -d 'List the audited tool calls, oldest first'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "migrate" -d 'Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from hub" -f -a "keys" -d 'List the machine keys the hub pinned for the machines\' signed histories, or forget one machine\'s pin so that its next sync pins the key it comes with'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from sync" -f -a "setup" -d 'Remember the hub and its token, so `aletheia sync` and the server\'s worker need no flags'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from sync" -f -a "status" -d 'What is waiting to be pushed, how far this store has pulled, and the last sync'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from sync" -f -a "conflicts" -d 'The versions the hub kept when two machines changed the same item between syncs'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from mcp-link" -f -a "create" -d 'Make a token; it is printed once, with the entry to paste into each host'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from mcp-link" -f -a "list" -d 'List the tokens (never their secrets)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from mcp-link" -f -a "revoke" -d 'Revoke a token: every request with it is refused from now on'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from rules" -f -a "list" -d 'List the enabled rules'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from rules" -f -a "add" -d 'Add a standing rule: for every project unless --scope-tier says otherwise'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from rules" -f -a "confirm" -d 'Record that a rule was re-checked'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from rules" -f -a "sync" -d 'Write the enabled rules into each connected tool\'s rule file at the project root'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from review" -f -a "list" -d 'List what waits: clients\' proposals, then facts that disagree'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from review" -f -a "accept" -d 'Accept a proposal (pID: it is written as the client asked) or keep a fact under review (FACT_ID: the fact it disagreed with is closed and kept as history)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from review" -f -a "reject" -d 'Reject a proposal (pID: nothing it asked for is written) or a fact under review (FACT_ID: the fact it disagreed with stays current)'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from list" -f -a "read" -d 'Print a list\'s items as JSON; a list never written exits 1'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from list" -f -a "write" -d 'Replace a list\'s items with the JSON array on stdin'
complete -c aletheia -n "__fish_aletheia_using_subcommand help; and __fish_seen_subcommand_from model" -f -a "fetch" -d 'Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB each, from their public home'
