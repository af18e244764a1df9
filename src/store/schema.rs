//! Embedded migrations. A released migration is never edited: a change is a new entry.
//!
//! `PRAGMA user_version` records how many have run. A store whose version is newer than this
//! binary knows is refused rather than written with assumptions that may no longer hold.

/// Migration `i` brings the schema from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: memories with full-text search, file paths, and the compression queue.
    r#"
    CREATE TABLE memories (
        id           INTEGER PRIMARY KEY,
        uid          TEXT    NOT NULL UNIQUE,
        project      TEXT    NOT NULL,
        kind         TEXT    NOT NULL CHECK (kind IN ('prompt','event','observation','summary','note')),
        type         TEXT    NOT NULL DEFAULT 'note' CHECK (type IN
                       ('decision','gotcha','bugfix','feature','refactor','change','discovery','note')),
        title        TEXT    NOT NULL,
        text         TEXT    NOT NULL,
        tool         TEXT    NOT NULL,
        session_id   TEXT,
        files        TEXT    NOT NULL DEFAULT '[]',
        pinned       INTEGER NOT NULL DEFAULT 0,
        dismissed    INTEGER NOT NULL DEFAULT 0,
        created_at   INTEGER NOT NULL,
        content_hash TEXT    NOT NULL,
        UNIQUE (project, kind, content_hash)
    );
    CREATE INDEX memories_by_time ON memories (created_at);
    CREATE INDEX memories_by_project_time ON memories (project, created_at);
    CREATE INDEX memories_pinned ON memories (project) WHERE pinned = 1 AND dismissed = 0;

    CREATE TABLE memory_files (
        path      TEXT    NOT NULL,
        memory_id INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
        PRIMARY KEY (path, memory_id)
    ) WITHOUT ROWID;
    CREATE INDEX memory_files_by_memory ON memory_files (memory_id);

    -- project is indexed so a project-limited search intersects posting lists instead of
    -- ranking every match in every project; its bm25 weight is 0.
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        title, text, project,
        content = 'memories', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, title, text, project) VALUES (new.id, new.title, new.text, new.project);
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, title, text, project)
            VALUES ('delete', old.id, old.title, old.text, old.project);
    END;
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF title, text, project ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, title, text, project)
            VALUES ('delete', old.id, old.title, old.text, old.project);
        INSERT INTO memories_fts (rowid, title, text, project) VALUES (new.id, new.title, new.text, new.project);
    END;

    CREATE TABLE session_queue (
        id          INTEGER PRIMARY KEY,
        project     TEXT    NOT NULL,
        session_id  TEXT    NOT NULL,
        tool        TEXT    NOT NULL,
        enqueued_at INTEGER NOT NULL,
        state       TEXT    NOT NULL DEFAULT 'pending',
        UNIQUE (project, session_id)
    );

    CREATE TABLE captures (
        tool        TEXT PRIMARY KEY,
        last_at     INTEGER NOT NULL
    );
    "#,
    // v2: facts (from compression), standing rules, named work-state lists, the audit trail.
    r#"
    CREATE TABLE facts (
        id            INTEGER PRIMARY KEY,
        project       TEXT    NOT NULL,
        subject       TEXT    NOT NULL,
        predicate     TEXT    NOT NULL,
        object        TEXT    NOT NULL,
        confidence    REAL    NOT NULL DEFAULT 0.5,
        -- 'rules' for the rule extractor, else the model provider's name.
        source        TEXT    NOT NULL DEFAULT 'rules',
        memory_id     INTEGER REFERENCES memories (id) ON DELETE SET NULL,
        valid_from    INTEGER NOT NULL,
        valid_to      INTEGER,
        superseded_by INTEGER REFERENCES facts (id),
        dismissed     INTEGER NOT NULL DEFAULT 0,
        created_at    INTEGER NOT NULL
    );
    CREATE INDEX facts_by_subject ON facts (subject COLLATE NOCASE, project);
    CREATE INDEX facts_by_project ON facts (project, valid_to);

    CREATE TABLE rules (
        id           TEXT    PRIMARY KEY,
        when_text    TEXT    NOT NULL DEFAULT 'always',
        then_text    TEXT    NOT NULL,
        scope_tier   TEXT    NOT NULL DEFAULT 'everywhere' CHECK (scope_tier IN ('everywhere','project','situation')),
        scope_name   TEXT    NOT NULL DEFAULT '',
        source       TEXT    NOT NULL,
        enabled      INTEGER NOT NULL DEFAULT 1,
        recheck      TEXT,
        evidence     TEXT    NOT NULL DEFAULT '{}',
        created_at   INTEGER NOT NULL,
        confirmed_at INTEGER NOT NULL,
        UNIQUE (when_text, then_text, scope_tier, scope_name)
    );

    CREATE TABLE work_lists (
        project    TEXT    NOT NULL,
        name       TEXT    NOT NULL,
        memory_id  INTEGER NOT NULL,
        items      TEXT    NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (project, name)
    );

    CREATE TABLE audit (
        id        INTEGER PRIMARY KEY,
        at        INTEGER NOT NULL,
        action    TEXT    NOT NULL,
        item_type TEXT    NOT NULL,
        item_id   TEXT    NOT NULL,
        reason    TEXT,
        actor     TEXT
    );
    "#,
    // v3: sentence vectors for semantic search (see `vectors`). `seq` never reuses a value, so
    // a process that has read up to one misses no later write. A memory whose title or text
    // changes (a scrub with new rules) loses its vector, to be made again from the new text.
    r#"
    CREATE TABLE memory_vectors (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE,
        model     TEXT    NOT NULL,
        scale     REAL    NOT NULL,
        vector    BLOB    NOT NULL
    );
    CREATE TRIGGER memory_vectors_stale AFTER UPDATE OF title, text ON memories BEGIN
        DELETE FROM memory_vectors WHERE memory_id = new.id;
    END;
    "#,
    // v4: compression. Sessions in `session_queue` become `jobs` (claimed under a lease, retried
    // with backoff); `extracted` marks the memories a job has read, so none is read twice; an
    // `episode` keeps a summary row's original message once the row holds the generated summary.
    // Facts are bi-temporal: valid_from/valid_to say when a fact held in the world, created_at
    // (recorded) and superseded_at when the store learned and replaced it. Two facts about one
    // subject and predicate with the same start wait in `fact_reviews` for the user.
    // `provider_usage` counts what was sent to model providers, per day.
    r#"
    CREATE TABLE jobs (
        id          INTEGER PRIMARY KEY,
        type        TEXT    NOT NULL,
        project     TEXT    NOT NULL,
        -- NULL: the project's own notes, not one session's.
        session_id  TEXT,
        state       TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','running','done','failed')),
        attempts    INTEGER NOT NULL DEFAULT 0,
        run_after   INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        last_error  TEXT,
        result      TEXT,
        -- Characters sent to model providers for this job, over all its attempts (the cap).
        chars_sent  INTEGER NOT NULL DEFAULT 0,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX jobs_one_pending ON jobs (type, project, ifnull(session_id, ''))
        WHERE state = 'pending';
    CREATE INDEX jobs_by_state ON jobs (state, run_after);

    CREATE TABLE extracted (
        memory_id INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
        job_id    INTEGER,
        at        INTEGER NOT NULL
    );

    CREATE TABLE episodes (
        memory_id   INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
        title       TEXT    NOT NULL,
        text        TEXT    NOT NULL,
        replaced_at INTEGER NOT NULL,
        dismissed   INTEGER NOT NULL DEFAULT 0
    );

    ALTER TABLE facts ADD COLUMN superseded_at INTEGER;
    ALTER TABLE facts ADD COLUMN job_id INTEGER;
    CREATE INDEX facts_current ON facts (project, subject COLLATE NOCASE, predicate COLLATE NOCASE)
        WHERE valid_to IS NULL;

    CREATE TABLE fact_reviews (
        id          INTEGER PRIMARY KEY,
        project     TEXT    NOT NULL,
        fact_a      INTEGER NOT NULL REFERENCES facts (id),
        fact_b      INTEGER NOT NULL REFERENCES facts (id),
        state       TEXT    NOT NULL DEFAULT 'open' CHECK (state IN ('open','resolved')),
        kept        INTEGER REFERENCES facts (id),
        created_at  INTEGER NOT NULL,
        resolved_at INTEGER
    );
    CREATE INDEX fact_reviews_open ON fact_reviews (project) WHERE state = 'open';

    CREATE TABLE provider_usage (
        day            TEXT    NOT NULL,
        provider       TEXT    NOT NULL,
        calls          INTEGER NOT NULL DEFAULT 0,
        chars_sent     INTEGER NOT NULL DEFAULT 0,
        chars_received INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (day, provider)
    ) WITHOUT ROWID;
    "#,
    // v5: what changed in memories already stored, for a keyword index held in a process's
    // memory (see `keyword_index`). `words` says the row's title, text or project changed (or
    // it is gone), else only what ranking reads of it. New rows are not logged: they have ids
    // above every one held. The newest 100,000 entries are kept; an index whose cursor falls
    // below them rebuilds.
    r#"
    CREATE TABLE memory_changes (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        words     INTEGER NOT NULL
    );
    CREATE TRIGGER memory_changes_words AFTER UPDATE OF title, text, project ON memories BEGIN
        INSERT INTO memory_changes (memory_id, words) VALUES (new.id, 1);
    END;
    CREATE TRIGGER memory_changes_traits AFTER UPDATE OF pinned, dismissed, type, kind, created_at
    ON memories BEGIN
        INSERT INTO memory_changes (memory_id, words) VALUES (new.id, 0);
    END;
    CREATE TRIGGER memory_changes_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memory_changes (memory_id, words) VALUES (old.id, 1);
    END;
    CREATE TRIGGER memory_changes_trim AFTER INSERT ON memory_changes BEGIN
        DELETE FROM memory_changes WHERE seq <= new.seq - 100000;
    END;
    "#,
    // v6: the review inbox and trust levels (see `inbox`). What a client trusted only to
    // propose asks for waits in `proposals` (its tool and redacted arguments) until the owner
    // accepts or rejects it; one request waits once. `client_trust` holds the levels the owner
    // set, by client name.
    r#"
    CREATE TABLE proposals (
        id           INTEGER PRIMARY KEY,
        op           TEXT    NOT NULL,
        args         TEXT    NOT NULL,
        client       TEXT    NOT NULL,
        project      TEXT    NOT NULL,
        summary      TEXT    NOT NULL,
        reference    TEXT,
        why          TEXT    NOT NULL,
        request_hash TEXT    NOT NULL,
        state        TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','accepted','rejected')),
        created_at   INTEGER NOT NULL,
        decided_at   INTEGER,
        decided_by   TEXT,
        outcome      TEXT
    );
    CREATE UNIQUE INDEX proposals_one_waiting ON proposals (request_hash) WHERE state = 'pending';
    CREATE INDEX proposals_by_state ON proposals (state, project, created_at);

    CREATE TABLE client_trust (
        client TEXT    PRIMARY KEY,
        level  TEXT    NOT NULL CHECK (level IN ('read','propose','write')),
        set_at INTEGER NOT NULL
    );
    "#,
    // v7: which memories each session was told (see `told`), so that recall as an agent reads
    // or edits a file never tells a session the same memory twice. Kept 30 days.
    r#"
    CREATE TABLE session_told (
        session_id TEXT    NOT NULL,
        memory_id  INTEGER NOT NULL,
        at         INTEGER NOT NULL,
        PRIMARY KEY (session_id, memory_id)
    ) WITHOUT ROWID;
    CREATE INDEX session_told_by_time ON session_told (at);
    "#,
    // v8: the signed history (see `history`). Triggers note every changed memory, rule, fact
    // and list in `history_pending`; the write that changed it turns its rows into signed
    // entries of this machine's chain in `history` before it commits. Rows stored before now
    // wait as `baseline` (up to `history_baseline.last`), for `aletheia verify`.
    // `history_keys` pins other machines' public keys on first sight.
    r#"
    CREATE TABLE history (
        seq          INTEGER NOT NULL,
        machine      TEXT    NOT NULL,
        at           INTEGER NOT NULL,
        action       TEXT    NOT NULL,
        item         TEXT    NOT NULL,
        actor        TEXT    NOT NULL,
        content_hash TEXT    NOT NULL,
        prev         TEXT    NOT NULL,
        hash         TEXT    NOT NULL,
        signature    TEXT    NOT NULL,
        PRIMARY KEY (machine, seq)
    ) WITHOUT ROWID;
    CREATE TABLE history_keys (
        machine    TEXT    PRIMARY KEY,
        public_key TEXT    NOT NULL,
        first_seen INTEGER NOT NULL
    );
    CREATE TABLE history_pending (
        id        INTEGER PRIMARY KEY,
        item_type TEXT    NOT NULL,
        item_key  TEXT    NOT NULL,
        op        TEXT    NOT NULL
    );
    INSERT INTO history_pending (item_type, item_key, op)
        SELECT 'memory', uid, 'baseline' FROM memories ORDER BY id;
    INSERT INTO history_pending (item_type, item_key, op)
        SELECT 'rule', id, 'baseline' FROM rules ORDER BY created_at, id;
    INSERT INTO history_pending (item_type, item_key, op)
        SELECT 'fact', CAST(id AS TEXT), 'baseline' FROM facts ORDER BY id;
    INSERT INTO history_pending (item_type, item_key, op)
        SELECT 'list', CAST(memory_id AS TEXT), 'baseline' FROM work_lists ORDER BY memory_id;
    -- The last row the migration queued: only these are ever sealed as baseline.
    CREATE TABLE history_baseline AS SELECT ifnull(max(id), 0) AS last FROM history_pending;
    CREATE TRIGGER history_memory_insert AFTER INSERT ON memories BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('memory', new.uid, 'insert');
    END;
    CREATE TRIGGER history_memory_update AFTER UPDATE ON memories BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('memory', new.uid, 'update');
    END;
    CREATE TRIGGER history_memory_delete AFTER DELETE ON memories BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('memory', old.uid, 'delete');
    END;
    CREATE TRIGGER history_rule_insert AFTER INSERT ON rules BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('rule', new.id, 'insert');
    END;
    CREATE TRIGGER history_rule_update AFTER UPDATE ON rules BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('rule', new.id, 'update');
    END;
    CREATE TRIGGER history_rule_delete AFTER DELETE ON rules BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('rule', old.id, 'delete');
    END;
    CREATE TRIGGER history_fact_insert AFTER INSERT ON facts BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('fact', CAST(new.id AS TEXT), 'insert');
    END;
    CREATE TRIGGER history_fact_update AFTER UPDATE ON facts BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('fact', CAST(new.id AS TEXT), 'update');
    END;
    CREATE TRIGGER history_fact_delete AFTER DELETE ON facts BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('fact', CAST(old.id AS TEXT), 'delete');
    END;
    CREATE TRIGGER history_list_insert AFTER INSERT ON work_lists BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('list', CAST(new.memory_id AS TEXT), 'insert');
    END;
    CREATE TRIGGER history_list_update AFTER UPDATE ON work_lists BEGIN
        INSERT INTO history_pending (item_type, item_key, op)
            SELECT 'list', CAST(old.memory_id AS TEXT), 'delete' WHERE old.memory_id <> new.memory_id;
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('list', CAST(new.memory_id AS TEXT), 'update');
    END;
    CREATE TRIGGER history_list_delete AFTER DELETE ON work_lists BEGIN
        INSERT INTO history_pending (item_type, item_key, op) VALUES ('list', CAST(old.memory_id AS TEXT), 'delete');
    END;
    "#,
    // v9: histories travel with sync (see `history::sync`). A hub numbers the entries it takes
    // from machines in `arrival`, the order pulls serve them in (its own and a machine's own
    // entries have none); a key is pinned to the sync machine id that first sent it.
    r#"
    ALTER TABLE history ADD COLUMN arrival INTEGER;
    CREATE UNIQUE INDEX history_by_arrival ON history (arrival) WHERE arrival IS NOT NULL;
    ALTER TABLE history_keys ADD COLUMN sync_machine TEXT NOT NULL DEFAULT '';
    CREATE INDEX history_keys_by_sync_machine ON history_keys (sync_machine);
    "#,
    // v10: a memory's earlier texts (see `versions`): an edit keeps the text it replaces, with
    // who wrote it and when, and the memory records who wrote its current text.
    r#"
    ALTER TABLE memories ADD COLUMN edited_by TEXT;
    ALTER TABLE memories ADD COLUMN edited_at INTEGER;
    CREATE TABLE memory_versions (
        id          INTEGER PRIMARY KEY,
        memory_id   INTEGER NOT NULL,
        version     INTEGER NOT NULL,
        title       TEXT    NOT NULL,
        text        TEXT    NOT NULL,
        source      TEXT    NOT NULL,
        written_at  INTEGER NOT NULL,
        replaced_at INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX memory_versions_by_memory ON memory_versions (memory_id, version);
    "#,
    // v11: memories that change over time. A newer memory that replaces an older one links
    // them (see `supersession`: the older stays, marked); feedback on a memory (see
    // `feedback`) moves its ranking within a bound. Neither holds text a scrub would redact.
    // `stored_at` is when this store took a memory in, apart from `created_at`, when it was
    // said or done (a back-fill's or an import's own time); unknown for older rows.
    r#"
    ALTER TABLE memories ADD COLUMN stored_at INTEGER;
    CREATE TABLE memory_links (
        older      INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
        newer      INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
        cause      TEXT    NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (older, newer)
    ) WITHOUT ROWID;
    CREATE INDEX memory_links_by_newer ON memory_links (newer);
    CREATE TABLE memory_feedback (
        memory_id  INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
        favourite  INTEGER NOT NULL DEFAULT 0,
        positive   INTEGER NOT NULL DEFAULT 0,
        negative   INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL
    );
    "#,
];

/// The schema version this binary writes.
#[allow(
    clippy::cast_possible_wrap,
    reason = "one version per migration: a few dozen at most, far below i64::MAX"
)]
pub const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;
