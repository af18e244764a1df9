
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'aletheia' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'aletheia'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'aletheia' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run as a host hook: read one JSON payload on stdin (always exits 0)')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the MCP tools over stdio')
            [CompletionResult]::new('server', 'server', [CompletionResultType]::ParameterValue, 'Serve the REST API, MCP over HTTP and the dashboard on a loopback port, with the worker')
            [CompletionResult]::new('hub', 'hub', [CompletionResultType]::ParameterValue, 'Serve one store to several machines or a team over HTTP, each request with a token')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Push this store''s new memories and changes to a hub, and pull what it has from others')
            [CompletionResult]::new('mcp-link', 'mcp-link', [CompletionResultType]::ParameterValue, 'The hub''s tokens: create, list, revoke')
            [CompletionResult]::new('connect', 'connect', [CompletionResultType]::ParameterValue, 'Show what `install` would write for a host (hooks and MCP entry); writes nothing')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Register the hooks and the MCP server with a host (with --write)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove what `install` added to a host''s configuration')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'Standing rules: list, add, confirm, sync (into each tool''s rule file)')
            [CompletionResult]::new('compress', 'compress', [CompletionResultType]::ParameterValue, 'Turn finished sessions into facts and summaries now (or keep a worker running)')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'What waits for you: clients'' proposals and facts that disagree. list, accept, reject')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'How far each connected client''s writes are trusted: read, propose or write')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Named work-state lists: read, write')
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Store one note')
            [CompletionResult]::new('capture', 'capture', [CompletionResultType]::ParameterValue, 'Store one memory read from stdin')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memories')
            [CompletionResult]::new('timeline', 'timeline', [CompletionResultType]::ParameterValue, 'Show the memories before and after one memory')
            [CompletionResult]::new('observations', 'observations', [CompletionResultType]::ParameterValue, 'Show memories in full by id')
            [CompletionResult]::new('why', 'why', [CompletionResultType]::ParameterValue, 'Where a memory or fact came from: the fact, its memory, the original message, the session, and the hook event or call that stored it, with times')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'One memory with every text it held, newest first: who wrote each and when; the memories it replaced or that replaced it; its feedback')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace a note''s text (and title); the old text is kept as a version')
            [CompletionResult]::new('feedback', 'feedback', [CompletionResultType]::ParameterValue, 'Say what a memory is worth: --favourite, --unfavourite, --positive or --negative')
            [CompletionResult]::new('drift', 'drift', [CompletionResultType]::ParameterValue, 'The memories whose files changed or went away since they were written, in this folder')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the signed history: every chain and signature, and that nothing was changed behind aletheia''s back')
            [CompletionResult]::new('facts', 'facts', [CompletionResultType]::ParameterValue, 'The facts about a subject and how they changed (subjects matched by words), or every subject with its count')
            [CompletionResult]::new('dismiss', 'dismiss', [CompletionResultType]::ParameterValue, 'Hide a memory (or fact) from search and context without deleting it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Undo dismiss')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print the session-start context block')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import memories from JSONL (a file or stdin)')
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Store the prompts and summaries of past sessions from a host''s transcripts')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export every memory as JSONL to stdout')
            [CompletionResult]::new('scrub', 'scrub', [CompletionResultType]::ParameterValue, 'Redact stored rows again with the current rules')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Report the store, the spool, captures and host hooks, and what to fix')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Bring everything spooled into the store now')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Print stdin as it would be stored, secrets redacted')
            [CompletionResult]::new('model', 'model', [CompletionResultType]::ParameterValue, 'The local embedding model for semantic search')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Give every memory a vector for semantic search (needs the model: aletheia model fetch)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell''s completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page (roff: `aletheia man | man -l -`), or write one page per command')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;hook' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;mcp' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;server' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The port (ALETHEIA_PORT; default 7749; 0 picks a free one, printed at start)')
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'The address to listen on. Anything but loopback needs ALETHEIA_API_KEY of 24+ characters')
            [CompletionResult]::new('--no-worker', '--no-worker', [CompletionResultType]::ParameterName, 'Do not run the compression worker')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;hub' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The port (default 7750; 0 picks a free one, printed at start)')
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'The address to listen on. Anything but loopback needs --tls-cert and --tls-key, or --behind-proxy')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'The certificate chain to serve TLS with (PEM, the leaf first)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The certificate''s private key (PEM)')
            [CompletionResult]::new('--behind-proxy', '--behind-proxy', [CompletionResultType]::ParameterName, 'A proxy or tunnel in front terminates TLS (Caddy, nginx, Tailscale, cloudflared): serve plain HTTP to it and take the public name it forwards as Host')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'List the audited tool calls, oldest first')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end)')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'List the machine keys the hub pinned for the machines'' signed histories, or forget one machine''s pin so that its next sync pins the key it comes with')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;hub;audit' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only calls since this time (YYYY-MM-DD, yesterday, 2w, 3 days ago, ...)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Only calls made with this token (its id, from mcp-link list)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many rows')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;hub;migrate' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'The SQLite hub to copy from (read only)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The PostgreSQL database to copy into: postgres://user@host/dbname')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;hub;keys' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--forget', '--forget', [CompletionResultType]::ParameterName, 'The sync machine id whose pinned key to forget (as `aletheia hub keys` lists it, and a refused sync names it), after its machine.key was replaced on purpose')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;hub;help' {
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'List the audited tool calls, oldest first')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end)')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'List the machine keys the hub pinned for the machines'' signed histories, or forget one machine''s pin so that its next sync pins the key it comes with')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;hub;help;audit' {
            break
        }
        'aletheia;hub;help;migrate' {
            break
        }
        'aletheia;hub;help;keys' {
            break
        }
        'aletheia;hub;help;help' {
            break
        }
        'aletheia;sync' {
            [CompletionResult]::new('--hub', '--hub', [CompletionResultType]::ParameterName, 'The hub''s address (http://host:7750 or https://...); default: the one `sync setup` saved')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default: ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Remember the hub and its token, so `aletheia sync` and the server''s worker need no flags')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'What is waiting to be pushed, how far this store has pulled, and the last sync')
            [CompletionResult]::new('conflicts', 'conflicts', [CompletionResultType]::ParameterValue, 'The versions the hub kept when two machines changed the same item between syncs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;sync;setup' {
            [CompletionResult]::new('--hub', '--hub', [CompletionResultType]::ParameterName, 'The hub''s address (http://host:7750 or https://...); default: the one `sync setup` saved')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default: ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;sync;status' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;sync;conflicts' {
            [CompletionResult]::new('--hub', '--hub', [CompletionResultType]::ParameterName, 'The hub''s address (http://host:7750 or https://...); default: the one `sync setup` saved')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default: ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many, newest first')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;sync;help' {
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Remember the hub and its token, so `aletheia sync` and the server''s worker need no flags')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'What is waiting to be pushed, how far this store has pulled, and the last sync')
            [CompletionResult]::new('conflicts', 'conflicts', [CompletionResultType]::ParameterValue, 'The versions the hub kept when two machines changed the same item between syncs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;sync;help;setup' {
            break
        }
        'aletheia;sync;help;status' {
            break
        }
        'aletheia;sync;help;conflicts' {
            break
        }
        'aletheia;sync;help;help' {
            break
        }
        'aletheia;mcp-link' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Make a token; it is printed once, with the entry to paste into each host')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the tokens (never their secrets)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a token: every request with it is refused from now on')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;mcp-link;create' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--projects', '--projects', [CompletionResultType]::ParameterName, 'The projects it may touch, separated by commas; default: every project')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'mcp or read: the read tools; sync: every tool and sync; admin: also tokens and audit')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A name to know it by (a machine, a person)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'When it stops working: a count of hours, days or weeks (12h, 30d, 8w); default never')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The hub''s MCP address, for the entries printed (default http://127.0.0.1:7750/mcp)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;mcp-link;list' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;mcp-link;revoke' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;mcp-link;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Make a token; it is printed once, with the entry to paste into each host')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the tokens (never their secrets)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a token: every request with it is refused from now on')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;mcp-link;help;create' {
            break
        }
        'aletheia;mcp-link;help;list' {
            break
        }
        'aletheia;mcp-link;help;revoke' {
            break
        }
        'aletheia;mcp-link;help;help' {
            break
        }
        'aletheia;connect' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project''s files (in the working directory) instead of the user''s')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;install' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project''s files (at the git root of the working directory) instead of the user''s')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Write the files; without it, only show what would change')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;uninstall' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project''s files (at the git root of the working directory) instead of the user''s')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;rules' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the enabled rules')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a standing rule: for every project unless --scope-tier says otherwise')
            [CompletionResult]::new('confirm', 'confirm', [CompletionResultType]::ParameterValue, 'Record that a rule was re-checked')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Write the enabled rules into each connected tool''s rule file at the project root')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;rules;list' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;rules;add' {
            [CompletionResult]::new('--when', '--when', [CompletionResultType]::ParameterName, 'The situation; default: always')
            [CompletionResult]::new('--scope-tier', '--scope-tier', [CompletionResultType]::ParameterName, 'everywhere (the default, even inside a project), project or situation')
            [CompletionResult]::new('--scope-name', '--scope-name', [CompletionResultType]::ParameterName, 'The project or situation name (required with project or situation)')
            [CompletionResult]::new('--evidence-memory', '--evidence-memory', [CompletionResultType]::ParameterName, 'A memory id the rule rests on (repeatable)')
            [CompletionResult]::new('--evidence-fact', '--evidence-fact', [CompletionResultType]::ParameterName, 'A fact id the rule rests on (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;rules;confirm' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;rules;sync' {
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'Only this tool''s file, even if it is not connected')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Whose rules; default: the working directory''s project (the only one allowed)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;rules;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the enabled rules')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a standing rule: for every project unless --scope-tier says otherwise')
            [CompletionResult]::new('confirm', 'confirm', [CompletionResultType]::ParameterValue, 'Record that a rule was re-checked')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Write the enabled rules into each connected tool''s rule file at the project root')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;rules;help;list' {
            break
        }
        'aletheia;rules;help;add' {
            break
        }
        'aletheia;rules;help;confirm' {
            break
        }
        'aletheia;rules;help;sync' {
            break
        }
        'aletheia;rules;help;help' {
            break
        }
        'aletheia;compress' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Also compress this project''s own notes (those saved outside a session)')
            [CompletionResult]::new('--daemon', '--daemon', [CompletionResultType]::ParameterName, 'Keep a worker running (a tick every 2 s) until Ctrl-C, SIGINT or SIGTERM')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Show the queue and the newest jobs instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;review' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, to work on it instead of this machine''s')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine''s store')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List what waits: clients'' proposals, then facts that disagree')
            [CompletionResult]::new('accept', 'accept', [CompletionResultType]::ParameterValue, 'Accept a proposal (pID: it is written as the client asked) or keep a fact under review (FACT_ID: the fact it disagreed with is closed and kept as history)')
            [CompletionResult]::new('reject', 'reject', [CompletionResultType]::ParameterValue, 'Reject a proposal (pID: nothing it asked for is written) or a fact under review (FACT_ID: the fact it disagreed with stays current)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;review;list' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only this project (default: every project)')
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, to work on it instead of this machine''s')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine''s store')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;review;accept' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, to work on it instead of this machine''s')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine''s store')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;review;reject' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why, kept with a rejected proposal')
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, to work on it instead of this machine''s')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database (postgres://user@host:5432/dbname), to work on it instead of this machine''s store')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;review;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List what waits: clients'' proposals, then facts that disagree')
            [CompletionResult]::new('accept', 'accept', [CompletionResultType]::ParameterValue, 'Accept a proposal (pID: it is written as the client asked) or keep a fact under review (FACT_ID: the fact it disagreed with is closed and kept as history)')
            [CompletionResult]::new('reject', 'reject', [CompletionResultType]::ParameterValue, 'Reject a proposal (pID: nothing it asked for is written) or a fact under review (FACT_ID: the fact it disagreed with stays current)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;review;help;list' {
            break
        }
        'aletheia;review;help;accept' {
            break
        }
        'aletheia;review;help;reject' {
            break
        }
        'aletheia;review;help;help' {
            break
        }
        'aletheia;trust' {
            [CompletionResult]::new('--hub-db', '--hub-db', [CompletionResultType]::ParameterName, 'The hub''s SQLite store, a file (made on first use)')
            [CompletionResult]::new('--database', '--database', [CompletionResultType]::ParameterName, 'The hub''s PostgreSQL database, as postgres://user@host:5432/dbname (add ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use')
            [CompletionResult]::new('--reset', '--reset', [CompletionResultType]::ParameterName, 'Forget the client''s level: it writes memories directly and proposes rules again')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;list' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Print a list''s items as JSON; a list never written exits 1')
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Replace a list''s items with the JSON array on stdin')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;list;read' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project key; default: the working directory''s project')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;list;write' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project key; default: the working directory''s project')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;list;help' {
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Print a list''s items as JSON; a list never written exits 1')
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Replace a list''s items with the JSON array on stdin')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;list;help;read' {
            break
        }
        'aletheia;list;help;write' {
            break
        }
        'aletheia;list;help;help' {
            break
        }
        'aletheia;save' {
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'Title; default: the first 100 characters of the text')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project key; default: the working directory''s project')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'decision, gotcha, bugfix, feature, refactor, change, discovery or note')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'The tool to record as the source; default: ALETHEIA_TOOL, else cli')
            [CompletionResult]::new('--pinned', '--pinned', [CompletionResultType]::ParameterName, 'List it under Pinned in the session-start context')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;capture' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'prompt, event, observation, summary or note')
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'Title; default: the first 100 characters of the text')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project key; default: the working directory''s project')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'decision, gotcha, bugfix, feature, refactor, change, discovery or note')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'The tool to record as the source; default: ALETHEIA_TOOL, else cli')
            [CompletionResult]::new('--pinned', '--pinned', [CompletionResultType]::ParameterName, 'List it under Pinned in the session-start context')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;search' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'An exact file path instead of words')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only this project (default: every project)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only memories of this type: decision, gotcha, bugfix, feature, refactor, change, discovery or note')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only memories of this kind: prompt, event, observation, summary or note')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'A date, date-time, relative time (yesterday, 3 days ago, 2w) or epoch milliseconds')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Like --since; a bare date includes that day')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Answer as memory stood then (a date, date-time, relative time or epoch milliseconds): memories said or done later, later edits and later replacements are left out. Matching is on today''s words')
            [CompletionResult]::new('--older-than-days', '--older-than-days', [CompletionResultType]::ParameterName, 'Only results older than this many days')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, '1 to 100 (default 20)')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Hits to skip, for the next page: with --limit 20, --offset 20 shows hits 21 to 40 (default 0)')
            [CompletionResult]::new('--order', '--order', [CompletionResultType]::ParameterName, 'relevance, date_desc or date_asc')
            [CompletionResult]::new('--file-suffix', '--file-suffix', [CompletionResultType]::ParameterName, 'With --file: match paths that end with the text')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Pass the query to SQLite FTS5 as written')
            [CompletionResult]::new('--semantic', '--semantic', [CompletionResultType]::ParameterName, 'Also search by meaning with the local embedding model, fused with the words. Off by default on the command line: loading the model costs more than a keyword search')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;timeline' {
            [CompletionResult]::new('--anchor', '--anchor', [CompletionResultType]::ParameterName, 'A memory id from search; takes priority over --query. An unknown or dismissed one (or one outside --project) exits 1')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'Words whose top hit is the anchor; when nothing matches, that is said and it exits 0')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Limit the anchor lookup and the neighbours to one project')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Rows before the anchor, 0 to 50 (default 5)')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Rows after the anchor, 0 to 50 (default 5)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;observations' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;why' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'memory or fact')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;inspect' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;edit' {
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'The new title (default: the first 100 characters of the text)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;feedback' {
            [CompletionResult]::new('--favourite', '--favourite', [CompletionResultType]::ParameterName, 'Mark it a favourite: lifted a little in search, and never left out of the session-start block for not-helpful votes')
            [CompletionResult]::new('--unfavourite', '--unfavourite', [CompletionResultType]::ParameterName, 'Take the favourite mark away')
            [CompletionResult]::new('--positive', '--positive', [CompletionResultType]::ParameterName, 'It helped')
            [CompletionResult]::new('--negative', '--negative', [CompletionResultType]::ParameterName, 'It did not help: lowered a little in search; more of these than helpful votes leave it out of the session-start block')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;drift' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project; it must be this folder''s (the default)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;verify' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;facts' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only this project (default: every project)')
            [CompletionResult]::new('--predicate', '--predicate', [CompletionResultType]::ParameterName, 'Only facts with this predicate')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Facts valid at this time (a date, date-time, relative time or epoch milliseconds)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'With no subject: how many subjects to list, 1 to 100 (default 20)')
            [CompletionResult]::new('--include-superseded', '--include-superseded', [CompletionResultType]::ParameterName, 'Also list replaced facts (with no subject: count them too)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;dismiss' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'memory, observation, fact or episode')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why; kept in the audit trail, cut to 300 characters')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;restore' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'memory, observation, fact or episode')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;context' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Project key; default: the working directory''s project')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Recent unpinned memories to list, 1 to 100 (default 20)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;import' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;backfill' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only what was said since this time (YYYY-MM-DD, yesterday, 2w, 3 days ago, ...)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;export' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only this project')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;scrub' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;doctor' {
            [CompletionResult]::new('--rebuild-index', '--rebuild-index', [CompletionResultType]::ParameterName, 'Rebuild the search index from the memories, then report')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;drain' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;redact' {
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Only check the rule file named by ALETHEIA_REDACT_RULES and report how many rules it has')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'List which rule matched where (line, column, length), never the secret itself')
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'List the rules: each built-in rule''s name and what it catches, then the user''s')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;model' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB each, from their public home')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;model;fetch' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The models folder to fill, one subfolder per model (default: ALETHEIA_MODEL_DIR, else model/ in the data directory)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;model;help' {
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB each, from their public home')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;model;help;fetch' {
            break
        }
        'aletheia;model;help;help' {
            break
        }
        'aletheia;index' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;completions' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Write aletheia.1 and a page per subcommand (aletheia-search.1, ...) into this folder')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON (times in UTC epoch milliseconds) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'aletheia;help' {
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Run as a host hook: read one JSON payload on stdin (always exits 0)')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the MCP tools over stdio')
            [CompletionResult]::new('server', 'server', [CompletionResultType]::ParameterValue, 'Serve the REST API, MCP over HTTP and the dashboard on a loopback port, with the worker')
            [CompletionResult]::new('hub', 'hub', [CompletionResultType]::ParameterValue, 'Serve one store to several machines or a team over HTTP, each request with a token')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Push this store''s new memories and changes to a hub, and pull what it has from others')
            [CompletionResult]::new('mcp-link', 'mcp-link', [CompletionResultType]::ParameterValue, 'The hub''s tokens: create, list, revoke')
            [CompletionResult]::new('connect', 'connect', [CompletionResultType]::ParameterValue, 'Show what `install` would write for a host (hooks and MCP entry); writes nothing')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Register the hooks and the MCP server with a host (with --write)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove what `install` added to a host''s configuration')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'Standing rules: list, add, confirm, sync (into each tool''s rule file)')
            [CompletionResult]::new('compress', 'compress', [CompletionResultType]::ParameterValue, 'Turn finished sessions into facts and summaries now (or keep a worker running)')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'What waits for you: clients'' proposals and facts that disagree. list, accept, reject')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'How far each connected client''s writes are trusted: read, propose or write')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Named work-state lists: read, write')
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Store one note')
            [CompletionResult]::new('capture', 'capture', [CompletionResultType]::ParameterValue, 'Store one memory read from stdin')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memories')
            [CompletionResult]::new('timeline', 'timeline', [CompletionResultType]::ParameterValue, 'Show the memories before and after one memory')
            [CompletionResult]::new('observations', 'observations', [CompletionResultType]::ParameterValue, 'Show memories in full by id')
            [CompletionResult]::new('why', 'why', [CompletionResultType]::ParameterValue, 'Where a memory or fact came from: the fact, its memory, the original message, the session, and the hook event or call that stored it, with times')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'One memory with every text it held, newest first: who wrote each and when; the memories it replaced or that replaced it; its feedback')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace a note''s text (and title); the old text is kept as a version')
            [CompletionResult]::new('feedback', 'feedback', [CompletionResultType]::ParameterValue, 'Say what a memory is worth: --favourite, --unfavourite, --positive or --negative')
            [CompletionResult]::new('drift', 'drift', [CompletionResultType]::ParameterValue, 'The memories whose files changed or went away since they were written, in this folder')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the signed history: every chain and signature, and that nothing was changed behind aletheia''s back')
            [CompletionResult]::new('facts', 'facts', [CompletionResultType]::ParameterValue, 'The facts about a subject and how they changed (subjects matched by words), or every subject with its count')
            [CompletionResult]::new('dismiss', 'dismiss', [CompletionResultType]::ParameterValue, 'Hide a memory (or fact) from search and context without deleting it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Undo dismiss')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print the session-start context block')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import memories from JSONL (a file or stdin)')
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Store the prompts and summaries of past sessions from a host''s transcripts')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export every memory as JSONL to stdout')
            [CompletionResult]::new('scrub', 'scrub', [CompletionResultType]::ParameterValue, 'Redact stored rows again with the current rules')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Report the store, the spool, captures and host hooks, and what to fix')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Bring everything spooled into the store now')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Print stdin as it would be stored, secrets redacted')
            [CompletionResult]::new('model', 'model', [CompletionResultType]::ParameterValue, 'The local embedding model for semantic search')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Give every memory a vector for semantic search (needs the model: aletheia model fetch)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell''s completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page (roff: `aletheia man | man -l -`), or write one page per command')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'aletheia;help;hook' {
            break
        }
        'aletheia;help;mcp' {
            break
        }
        'aletheia;help;server' {
            break
        }
        'aletheia;help;hub' {
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'List the audited tool calls, oldest first')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end)')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'List the machine keys the hub pinned for the machines'' signed histories, or forget one machine''s pin so that its next sync pins the key it comes with')
            break
        }
        'aletheia;help;hub;audit' {
            break
        }
        'aletheia;help;hub;migrate' {
            break
        }
        'aletheia;help;hub;keys' {
            break
        }
        'aletheia;help;sync' {
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Remember the hub and its token, so `aletheia sync` and the server''s worker need no flags')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'What is waiting to be pushed, how far this store has pulled, and the last sync')
            [CompletionResult]::new('conflicts', 'conflicts', [CompletionResultType]::ParameterValue, 'The versions the hub kept when two machines changed the same item between syncs')
            break
        }
        'aletheia;help;sync;setup' {
            break
        }
        'aletheia;help;sync;status' {
            break
        }
        'aletheia;help;sync;conflicts' {
            break
        }
        'aletheia;help;mcp-link' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Make a token; it is printed once, with the entry to paste into each host')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the tokens (never their secrets)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a token: every request with it is refused from now on')
            break
        }
        'aletheia;help;mcp-link;create' {
            break
        }
        'aletheia;help;mcp-link;list' {
            break
        }
        'aletheia;help;mcp-link;revoke' {
            break
        }
        'aletheia;help;connect' {
            break
        }
        'aletheia;help;install' {
            break
        }
        'aletheia;help;uninstall' {
            break
        }
        'aletheia;help;rules' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the enabled rules')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a standing rule: for every project unless --scope-tier says otherwise')
            [CompletionResult]::new('confirm', 'confirm', [CompletionResultType]::ParameterValue, 'Record that a rule was re-checked')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Write the enabled rules into each connected tool''s rule file at the project root')
            break
        }
        'aletheia;help;rules;list' {
            break
        }
        'aletheia;help;rules;add' {
            break
        }
        'aletheia;help;rules;confirm' {
            break
        }
        'aletheia;help;rules;sync' {
            break
        }
        'aletheia;help;compress' {
            break
        }
        'aletheia;help;review' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List what waits: clients'' proposals, then facts that disagree')
            [CompletionResult]::new('accept', 'accept', [CompletionResultType]::ParameterValue, 'Accept a proposal (pID: it is written as the client asked) or keep a fact under review (FACT_ID: the fact it disagreed with is closed and kept as history)')
            [CompletionResult]::new('reject', 'reject', [CompletionResultType]::ParameterValue, 'Reject a proposal (pID: nothing it asked for is written) or a fact under review (FACT_ID: the fact it disagreed with stays current)')
            break
        }
        'aletheia;help;review;list' {
            break
        }
        'aletheia;help;review;accept' {
            break
        }
        'aletheia;help;review;reject' {
            break
        }
        'aletheia;help;trust' {
            break
        }
        'aletheia;help;list' {
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Print a list''s items as JSON; a list never written exits 1')
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Replace a list''s items with the JSON array on stdin')
            break
        }
        'aletheia;help;list;read' {
            break
        }
        'aletheia;help;list;write' {
            break
        }
        'aletheia;help;save' {
            break
        }
        'aletheia;help;capture' {
            break
        }
        'aletheia;help;search' {
            break
        }
        'aletheia;help;timeline' {
            break
        }
        'aletheia;help;observations' {
            break
        }
        'aletheia;help;why' {
            break
        }
        'aletheia;help;inspect' {
            break
        }
        'aletheia;help;edit' {
            break
        }
        'aletheia;help;feedback' {
            break
        }
        'aletheia;help;drift' {
            break
        }
        'aletheia;help;verify' {
            break
        }
        'aletheia;help;facts' {
            break
        }
        'aletheia;help;dismiss' {
            break
        }
        'aletheia;help;restore' {
            break
        }
        'aletheia;help;context' {
            break
        }
        'aletheia;help;import' {
            break
        }
        'aletheia;help;backfill' {
            break
        }
        'aletheia;help;export' {
            break
        }
        'aletheia;help;scrub' {
            break
        }
        'aletheia;help;doctor' {
            break
        }
        'aletheia;help;drain' {
            break
        }
        'aletheia;help;redact' {
            break
        }
        'aletheia;help;model' {
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB each, from their public home')
            break
        }
        'aletheia;help;model;fetch' {
            break
        }
        'aletheia;help;index' {
            break
        }
        'aletheia;help;completions' {
            break
        }
        'aletheia;help;man' {
            break
        }
        'aletheia;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
