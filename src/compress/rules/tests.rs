//! The rule extractor's cases, each in sentences of its own.

use rstest::rstest;

use super::*;

fn triples(text: &str) -> Vec<(String, String, String)> {
    extract(text)
        .into_iter()
        .map(|c| (c.subject, c.predicate, c.object))
        .collect()
}

fn triple(s: &str, p: &str, o: &str) -> (String, String, String) {
    (s.to_string(), p.to_string(), o.to_string())
}

fn midnight_utc(date: &str) -> i64 {
    let date: Date = date.parse().unwrap();
    date.to_zoned_datetime(TimeZone::UTC)
        .unwrap()
        .timestamp()
        .as_millisecond()
}

#[rstest]
#[case(
    "The spool writer uses an exclusive file lock.",
    "spool writer",
    "uses",
    "an exclusive file lock"
)]
#[case(
    "Every migration must be reversible.",
    "Every migration",
    "must",
    "be reversible"
)]
#[case("The hub listens on port 7443.", "hub", "listens on", "port 7443")]
#[case(
    "The exporter writes to the archive bucket.",
    "exporter",
    "writes to",
    "the archive bucket"
)]
#[case(
    "The exporter writes CSV reports to the archive bucket.",
    "exporter",
    "writes",
    "CSV reports to the archive bucket"
)]
#[case(
    "The `store` module owns every SQL statement.",
    "store module",
    "owns",
    "every SQL statement"
)]
#[case(
    "Cache keys are SHA-256 hashes of the request body.",
    "Cache keys",
    "are",
    "SHA-256 hashes of the request body"
)]
#[case(
    "Outbound calls require the retry wrapper.",
    "Outbound calls",
    "require",
    "the retry wrapper"
)]
#[case(
    "The nightly run uses a fresh database.",
    "nightly run",
    "uses",
    "a fresh database"
)]
#[case(
    "The parser also requires UTF-8 input.",
    "parser",
    "requires",
    "UTF-8 input"
)]
fn keeps_a_plain_fact(#[case] text: &str, #[case] s: &str, #[case] p: &str, #[case] o: &str) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case::pronoun("It stores the token in the keychain.")]
#[case::pronoun_possessive("Our worker uses Redis for locks.")]
#[case::there("There is a lock table in the schema.")]
#[case::imperative("Use the release profile for benchmarks.")]
#[case::imperative_with_subject("Make sure the worker uses the new queue.")]
#[case::imperative_adverb("Always run the linter before pushing.")]
#[case::question("Does the worker use Redis?")]
#[case::tag_question("The worker uses Redis, right?")]
#[case::hedge("The worker probably uses Redis.")]
#[case::opinion("I think the worker uses Redis.")]
#[case::modal("The worker should use Redis.")]
#[case::negation("The worker does not use Redis.")]
#[case::no_longer("The worker no longer uses Redis.")]
#[case::contraction("The worker doesn't use Redis.")]
#[case::future("The worker will use Redis after the upgrade.")]
#[case::progressive("The migration is running on the replica.")]
#[case::past("The worker was Redis-backed until March.")]
#[case::change_log("Switched the worker to Redis.")]
#[case::perfect("The API has changed its error format.")]
#[case::comparative("Redis is faster than Postgres for hot keys.")]
#[case::vague("Everything is fine.")]
#[case::judgement("The build is broken again.")]
#[case::generic_subject("The user is happy.")]
#[case::condition("If the queue is full, the worker uses the spool.")]
#[case::scoped("In production, the worker uses Redis.")]
#[case::two_verbs("The API uses REST and serves OpenAPI docs.")]
#[case::relative_clause("The database is Postgres, which the ops team manages.")]
#[case::undated_since("Since the upgrade, the worker uses Redis.")]
fn drops_a_sentence_that_is_not_a_plain_fact(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[rstest]
#[case::diff_added("+The worker uses Redis for locks.")]
#[case::diff_removed("-The worker uses Redis for locks.")]
#[case::diff_hunk(
    "@@ -1,3 +1,3 @@\n The worker uses Redis.\n-The API uses REST.\n+The API uses gRPC."
)]
#[case::compiler_error("error: the worker uses an unknown queue name")]
#[case::exception("TypeError: the worker uses an undefined queue")]
#[case::stack_frame("    at Worker.run (/app/src/worker.js:12:9)")]
#[case::source_location("src/worker.rs:42:5: the worker uses a stale lock")]
#[case::log_timestamp("2026-03-01T10:00:00Z the worker uses 2 GB of memory")]
#[case::log_level("[WARN] the cache uses 90% of memory")]
#[case::log_level_word("INFO worker uses queue jobs-v2")]
#[case::shell_prompt("$ cargo run --bin worker")]
#[case::shell_command("docker compose up -d worker")]
#[case::shell_pipe("echo the worker uses Redis | tee notes.txt")]
#[case::code("let worker = Worker::uses(redis);")]
#[case::config("queue: redis")]
#[case::heading("## The worker uses Redis")]
#[case::fenced_code("```\nThe worker uses Redis.\n```")]
#[case::task("TODO: the worker uses too much memory")]
fn drops_a_line_that_is_not_prose(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[test]
fn periods_inside_versions_file_names_and_abbreviations_do_not_end_a_sentence() {
    assert_eq!(
        triples("The image uses Node 22.4. The API requires Python 3.12."),
        vec![
            triple("image", "uses", "Node 22.4"),
            triple("API", "requires", "Python 3.12"),
        ]
    );
    assert_eq!(
        triples("The loader reads config.toml at startup. The suite reads fixtures.json."),
        vec![
            triple("loader", "reads", "config.toml at startup"),
            triple("suite", "reads", "fixtures.json"),
        ]
    );
    assert_eq!(
        triples("The CLI supports three shells incl. Fish and Zsh."),
        vec![triple("CLI", "supports", "three shells incl. Fish and Zsh")]
    );
    assert_eq!(
        triples("Cold starts take 380 ms. The worker uses Redis."),
        vec![triple("worker", "uses", "Redis")],
        "after a number, \"ms.\" is a unit that ends the sentence"
    );
}

#[test]
fn a_wrapped_line_joins_its_sentence_and_a_new_line_starts_a_new_one() {
    assert_eq!(
        triples("The hook keeps a lease on each job\nand renews it every ten seconds."),
        vec![],
        "the wrapped sentence refers back with \"it\" and is dropped whole"
    );
    assert_eq!(
        triples("The spool lives on local disk\nThe server listens on port 7777"),
        vec![triple("server", "listens on", "port 7777")]
    );
    assert_eq!(
        triples("- The queue uses Redis\n- The cache uses Memcached"),
        vec![
            triple("queue", "uses", "Redis"),
            triple("cache", "uses", "Memcached"),
        ]
    );
}

#[test]
fn noise_lines_around_a_fact_leave_the_fact() {
    let text = "$ cargo test\ntest result: ok. 48 passed; 0 failed\n\
                The workspace requires Rust 1.89.\nerror[E0382]: borrow of moved value";
    assert_eq!(
        triples(text),
        vec![triple("workspace", "requires", "Rust 1.89")]
    );
}

#[rstest]
#[case("Since 2026-03-01, the hub requires TLS 1.3.")]
#[case("Since 2026-03-01 the hub requires TLS 1.3.")]
#[case("As of 2026-03-01, the hub requires TLS 1.3.")]
#[case("From 2026-03-01 on, the hub requires TLS 1.3.")]
#[case("On 2026-03-01, the hub requires TLS 1.3.")]
#[case("The hub requires TLS 1.3 since 2026-03-01.")]
fn a_stated_start_date_dates_the_fact(#[case] text: &str) {
    let facts = extract(text);
    assert_eq!(facts.len(), 1, "{text}");
    let fact = &facts[0];
    assert_eq!(
        (
            fact.subject.as_str(),
            fact.predicate.as_str(),
            fact.object.as_str()
        ),
        ("hub", "requires", "TLS 1.3")
    );
    assert_eq!(fact.valid_from, Some(midnight_utc("2026-03-01")));
    assert_eq!(fact.confidence, DATED_CONFIDENCE);
}

#[test]
fn a_date_elsewhere_does_not_date_a_fact() {
    let facts = extract("The cutover ran on 2026-02-03. The ledger service uses Postgres.");
    assert_eq!(facts.len(), 1);
    assert_eq!(facts[0].valid_from, None);
    assert_eq!(facts[0].confidence, UNDATED_CONFIDENCE);
    assert_eq!(
        extract("Since 2026-13-45, the hub requires TLS 1.3."),
        vec![]
    );
}

#[test]
fn a_subject_left_empty_by_an_adverb_is_no_fact() {
    assert_eq!(triples("Currently use the replica for reports."), vec![]);
}

#[rstest]
#[case::still("The scheduler still runs on the old VM.")]
#[case::only_before_the_verb("The exporter only writes CSV.")]
#[case::just_before_the_verb("The parser just handles ASCII input.")]
#[case::only_after_is("The portal is only reachable from the office network.")]
#[case::temporarily("The mailer temporarily sends through a backup relay.")]
#[case::for_now("The gateway uses a static key list for now.")]
#[case::for_the_time_being("The indexer reads from a dump for the time being.")]
#[case::at_the_moment("The crawler runs on one node at the moment.")]
#[case::in_progress("The schema rewrite is in progress.")]
#[case::workaround("The client pins HTTP/1.1 as a workaround.")]
fn drops_an_arrangement_that_is_about_to_change(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[rstest]
#[case("The gateway now uses HTTP/3.", "gateway", "uses", "HTTP/3")]
#[case("The gateway currently uses HTTP/3.", "gateway", "uses", "HTTP/3")]
#[case(
    "The archive stores only compressed segments.",
    "archive",
    "stores",
    "only compressed segments"
)]
#[case(
    "The feed serves protobuf over gRPC only.",
    "feed",
    "serves",
    "protobuf over gRPC only"
)]
#[case(
    "The tracker is the only reader of the audit log.",
    "tracker",
    "is",
    "the only reader of the audit log"
)]
fn keeps_an_adverb_that_does_not_change_the_fact(
    #[case] text: &str,
    #[case] s: &str,
    #[case] p: &str,
    #[case] o: &str,
) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case::metric_duration("Median build time is 7 minutes.")]
#[case::metric_ratio("Search accuracy is 0.93 on the gold set.")]
#[case::metric_percent("Disk usage is 64%.")]
#[case::size("The wheel is 22 MB.")]
#[case::large_count("The queue has 4.5 million messages.")]
#[case::thousands("The nightly job handles 1,800 files.")]
#[case::percent_after_has("The classifier has 88% recall.")]
#[case::took("The importer runs in 12 seconds.")]
#[case::speed("The renderer runs at 90 fps.")]
#[case::load("The scheduler runs at 35% CPU.")]
#[case::usage("The worker uses 700 MB of memory.")]
#[case::estimate("The index is roughly 9 GB.")]
#[case::around("The cache holds around 2 GB and is shared.")]
#[case::change("The pool size is 32, up from 16.")]
#[case::drop("The p95 is down to 30 ms.")]
fn drops_a_reading(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[rstest]
#[case("The lock timeout is 45 seconds.", "lock timeout", "is", "45 seconds")]
#[case("The upload cap is 25 MB.", "upload cap", "is", "25 MB")]
#[case("The default page size is 100.", "default page size", "is", "100")]
#[case("The batch size is 500.", "batch size", "is", "500")]
#[case(
    "The proxy has a 2% error budget.",
    "proxy",
    "has",
    "a 2% error budget"
)]
#[case("The device has 64 MB of flash.", "device", "has", "64 MB of flash")]
#[case(
    "The balancer targets 65% CPU utilisation.",
    "balancer",
    "targets",
    "65% CPU utilisation"
)]
#[case("The tracer keeps 2% of spans.", "tracer", "keeps", "2% of spans")]
#[case(
    "The importer handles files larger than 4 GB.",
    "importer",
    "handles",
    "files larger than 4 GB"
)]
#[case(
    "Attachments must be smaller than 20 MB.",
    "Attachments",
    "must",
    "be smaller than 20 MB"
)]
fn keeps_a_configured_value(#[case] text: &str, #[case] s: &str, #[case] p: &str, #[case] o: &str) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case::empty("The job queue is empty.")]
#[case::nearly("The replica is nearly in sync.")]
#[case::down("The metrics cluster is down.")]
#[case::clean("The linter is clean.")]
#[case::unchanged("The public API is unchanged.")]
#[case::level("The rollout is at 80%.")]
#[case::clock("The demo is at 2 pm.")]
#[case::weekday("The freeze is on Tuesday.")]
#[case::scheduled("The cutover is scheduled for 2026-09-01.")]
#[case::deadline("The vendor requires a signed contract by October.")]
#[case::work_to_do("The changelog needs updating.")]
#[case::work_item("The ticket is closed.")]
#[case::comparison("The new importer uses less memory than the old one.")]
fn drops_a_passing_state_or_an_event(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[rstest]
#[case(
    "The cleanup job runs on Sundays.",
    "cleanup job",
    "runs on",
    "Sundays"
)]
#[case(
    "The index is rebuilt nightly at 01:00 UTC.",
    "index",
    "is",
    "rebuilt nightly at 01:00 UTC"
)]
#[case(
    "The weekly export is at 05:00 UTC.",
    "weekly export",
    "is",
    "at 05:00 UTC"
)]
fn keeps_a_schedule(#[case] text: &str, #[case] s: &str, #[case] p: &str, #[case] o: &str) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case::role("Morgan is the approver for schema changes.")]
#[case::whereabouts("Lee is on leave.")]
#[case::on_call("Robin is on call.")]
#[case::newcomer("The new contractor needs a VPN account.")]
#[case::possessive("The customer's tenant uses SSO.")]
#[case::their_machine("The reviewer's laptop runs Arch.")]
#[case::head("The intern owns the test plan.")]
fn drops_a_sentence_about_a_person(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[rstest]
#[case(
    "The search team owns the ranking service.",
    "search team",
    "owns",
    "the ranking service"
)]
#[case(
    "The users table has a unique index on email.",
    "users table",
    "has",
    "a unique index on email"
)]
#[case("Admin users must enable 2FA.", "Admin users", "must", "enable 2FA")]
fn keeps_a_fact_that_names_people_as_part_of_the_product(
    #[case] text: &str,
    #[case] s: &str,
    #[case] p: &str,
    #[case] o: &str,
) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case::eg("The cache uses a fast store, e.g. Redis.")]
#[case::ie("The proxy uses a CDN, i.e. Fastly.")]
#[case::such_as("The API accepts formats such as CSV.")]
#[case::for_example("For example, the worker uses Redis.")]
#[case::for_instance("The router, for instance, handles retries.")]
#[case::open_task("- [ ] the importer must skip empty rows")]
#[case::done_task("- [x] The API uses the new schema")]
#[case::numbered("2. The worker uses Redis.")]
fn drops_an_example_or_a_list_of_steps(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[rstest]
#[case(
    "The site is built with Astro and the API is written in Go.",
    &[("site", "is", "built with Astro"), ("API", "is", "written in Go")]
)]
#[case(
    "The bus uses NATS, and the store uses SQLite.",
    &[("bus", "uses", "NATS"), ("store", "uses", "SQLite")]
)]
#[case(
    "The indexer uses Tantivy and Rayon.",
    &[("indexer", "uses", "Tantivy and Rayon")]
)]
#[case(
    "The journal stores inserts and writes.",
    &[("journal", "stores", "inserts and writes")]
)]
#[case::shared_subject("The bus uses NATS and publishes to three subjects.", &[])]
#[case::shared_subject_particle("The agent reads from journald and sends logs to Loki.", &[])]
#[case::second_participle("Events are batched and compressed with zstd.", &[])]
#[case::pronoun_clause("The bus uses NATS and it runs on Kubernetes.", &[])]
#[case::bad_clause("The bus uses NATS and the store is slow.", &[])]
#[case::comma_splice("The bus runs on Linux, the console supports Windows.", &[])]
fn reads_clauses_joined_by_and_one_by_one(
    #[case] text: &str,
    #[case] expected: &[(&str, &str, &str)],
) {
    let expected: Vec<_> = expected.iter().map(|(s, p, o)| triple(s, p, o)).collect();
    assert_eq!(triples(text), expected);
}

#[rstest]
#[case("Since June 5, 2026, the mailer uses Postmark.")]
#[case("Since June 5 2026 the mailer uses Postmark.")]
#[case("Since 5 June 2026, the mailer uses Postmark.")]
#[case("As of Jun 5th, 2026, the mailer uses Postmark.")]
#[case("From the 5th of June 2026, the mailer uses Postmark.")]
fn a_written_start_date_dates_the_fact(#[case] text: &str) {
    let facts = extract(text);
    assert_eq!(facts.len(), 1, "{text}");
    assert_eq!(
        (facts[0].subject.as_str(), facts[0].object.as_str()),
        ("mailer", "Postmark")
    );
    assert_eq!(facts[0].valid_from, Some(midnight_utc("2026-06-05")));
}

#[test]
fn a_version_opening_is_dropped_and_leaves_the_fact_undated() {
    for text in [
        "As of v2.4, the CLI writes logs to stderr.",
        "Since version 3 the CLI writes logs to stderr.",
    ] {
        let facts = extract(text);
        assert_eq!(facts.len(), 1, "{text}");
        assert_eq!(facts[0].object, "logs to stderr");
        assert_eq!(facts[0].valid_from, None);
    }
    assert_eq!(
        triples("Since February 30, 2026, the hub requires TLS 1.3."),
        vec![]
    );
    assert_eq!(triples("Since May 2026, the hub requires TLS 1.3."), vec![]);
}

#[rstest]
#[case(
    "The app requires macOS 13 or later.",
    "app",
    "requires",
    "macOS 13 or later"
)]
#[case(
    "The app supports macOS 13 and later.",
    "app",
    "supports",
    "macOS 13 and later"
)]
#[case("The agent is written in Zig.", "agent", "is", "written in Zig")]
fn keeps_a_lower_bound_and_a_passive(
    #[case] text: &str,
    #[case] s: &str,
    #[case] p: &str,
    #[case] o: &str,
) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case(
    "The search index is OpenSearch 2.11.",
    "search index",
    "is",
    "OpenSearch 2.11"
)]
#[case(
    "The ledger is the system of record.",
    "ledger",
    "is",
    "the system of record"
)]
#[case("The release branch is trunk.", "release branch", "is", "trunk")]
#[case(
    "The dead-letter topic is jobs-dlq.",
    "dead-letter topic",
    "is",
    "jobs-dlq"
)]
#[case("The session API is idempotent.", "session API", "is", "idempotent")]
#[case(
    "Invoices are kept in cold storage.",
    "Invoices",
    "are",
    "kept in cold storage"
)]
#[case(
    "The wiki is hosted on an internal Gitea.",
    "wiki",
    "is",
    "hosted on an internal Gitea"
)]
#[case(
    "The tokenizer is trained with SentencePiece and DeepSpeed.",
    "tokenizer",
    "is",
    "trained with SentencePiece and DeepSpeed"
)]
#[case("Exports are in Avro format.", "Exports", "are", "in Avro format")]
fn keeps_a_noun_phrase_or_an_arrangement_after_is(
    #[case] text: &str,
    #[case] s: &str,
    #[case] p: &str,
    #[case] o: &str,
) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[rstest]
#[case::state("The Windows installer is unaffected.")]
#[case::adjective("The sandbox account is tidy now.")]
#[case::available("The beta build is available to the QA group.")]
#[case::participle("The changelog entries are updated.")]
#[case::deleted("The legacy bucket is deleted.")]
#[case::frozen("The release branch is frozen.")]
#[case::attached("The flame graph is attached to the ticket.")]
#[case::place("The benchmark table is in the merge request.")]
#[case::progress("The fine-tuning run is at step 4000.")]
#[case::compound("The staging mirror is up-to-date.")]
fn drops_a_state_or_a_place_after_is(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[test]
fn a_name_with_a_capital_inside_opens_a_sentence() {
    assert_eq!(
        triples("The client is built with Flutter. macOS builds pass on CI."),
        vec![triple("client", "is", "built with Flutter")]
    );
}

#[test]
fn a_subject_that_reports_a_clause_is_no_fact() {
    assert_eq!(
        triples("The vendor docs say the token requires a refresh."),
        vec![]
    );
}

#[rstest]
#[case(
    "The billing worker must not retry declined cards.",
    "billing worker",
    "must",
    "not retry declined cards"
)]
#[case(
    "Session cookies must never be readable from scripts.",
    "Session cookies",
    "must",
    "never be readable from scripts"
)]
fn keeps_a_prohibition_with_its_negation(
    #[case] text: &str,
    #[case] s: &str,
    #[case] p: &str,
    #[case] o: &str,
) {
    assert_eq!(triples(text), vec![triple(s, p, o)]);
}

#[test]
fn a_verb_only_plural_after_a_singular_subject_is_still_a_verb() {
    assert_eq!(
        triples("Checkout service require a CSRF token."),
        vec![triple("Checkout service", "require", "a CSRF token")]
    );
    assert_eq!(
        triples("The test run uses Docker."),
        vec![triple("test run", "uses", "Docker")]
    );
}

#[test]
fn lower_case_lines_that_each_state_a_fact_are_read_apart() {
    assert_eq!(
        triples("Relay notes:\nrelay requires mutual TLS\nclient certs are stored in Vault"),
        vec![
            triple("relay", "requires", "mutual TLS"),
            triple("client certs", "are", "stored in Vault"),
        ]
    );
    assert_eq!(
        triples("The relay requires mutual TLS for\nevery client"),
        vec![triple("relay", "requires", "mutual TLS for every client")]
    );
}

#[test]
fn a_named_task_is_part_of_a_pipeline() {
    assert_eq!(
        triples("The compaction task runs in the batch worker pool."),
        vec![triple(
            "compaction task",
            "runs",
            "in the batch worker pool"
        )]
    );
}

#[test]
fn a_summary_keeps_its_standing_facts_and_drops_its_narration() {
    let text = "Finished the queue rewrite. The queue uses SQS with a 30-second visibility \
                timeout. Reproduced the slow consumer on staging. Median lag is 4 s, down \
                from 9 s. The consumer group is at 60% of its quota. Dana is the reviewer.";
    assert_eq!(
        triples(text),
        vec![triple(
            "queue",
            "uses",
            "SQS with a 30-second visibility timeout"
        )]
    );
}

/// Each case is a trap that a general rule rejects and a fact of the same shape that the rule
/// leaves alone, so that the rule can neither go missing nor grow to swallow facts.
#[rstest]
#[case::plural_use(
    "Firmware builds use Zephyr 3.6.",
    "Firmware builds require Zephyr 3.6.",
    ("Firmware builds", "require", "Zephyr 3.6")
)]
#[case::fixed_without_faults(
    "The parser now handles unknown attributes without erroring.",
    "The parser now handles files without headers.",
    ("parser", "handles", "files without headers")
)]
#[case::works_correctly(
    "The discount engine handles stacked coupons correctly.",
    "The discount engine handles stacked coupons.",
    ("discount engine", "handles", "stacked coupons")
)]
#[case::particle_state(
    "The beta flag is off in production.",
    "The flag store is LaunchDarkly in production.",
    ("flag store", "is", "LaunchDarkly in production")
)]
#[case::file_place(
    "The benchmark report is in `bench/report.md`.",
    "The schema is in `proto3` syntax.",
    ("schema", "is", "in proto3 syntax")
)]
#[case::release_bound(
    "The YAML file is kept read-only for one release.",
    "The YAML file is kept for release builds.",
    ("YAML file", "is", "kept for release builds")
)]
#[case::definition(
    "Rust is a systems programming language.",
    "The agent is a Rust binary.",
    ("agent", "is", "a Rust binary")
)]
#[case::participle_before_noun(
    "Two deprecated calls needed replacing.",
    "The deprecated client calls the v1 API.",
    ("deprecated client", "calls", "the v1 API")
)]
#[case::instead(
    "Service accounts require API keys instead.",
    "Service accounts require API keys instead of passwords.",
    ("Service accounts", "require", "API keys instead of passwords")
)]
#[case::as_well(
    "The CLI supports TOML as well.",
    "The CLI supports TOML as well as YAML.",
    ("CLI", "supports", "TOML as well as YAML")
)]
#[case::bare_irregular_participle(
    "The search index is rebuilt.",
    "The search index is rebuilt nightly.",
    ("search index", "is", "rebuilt nightly")
)]
#[case::regular_participle_on_a_schedule(
    "Payouts are batched.",
    "Payouts are batched daily at 16:00 CET.",
    ("Payouts", "are", "batched daily at 16:00 CET")
)]
#[case::once_opening_a_clause(
    "The plugin reads the license file once the host is ready.",
    "The plugin reads the license file once at startup.",
    ("plugin", "reads", "the license file once at startup")
)]
#[case::reading_of_a_measure(
    "Refresh rates are 15 per minute.",
    "Rates are cached per postcode for 15 minutes.",
    ("Rates", "are", "cached per postcode for 15 minutes")
)]
#[case::state_reached_now(
    "The importer handles malformed rows now.",
    "The importer now handles malformed rows.",
    ("importer", "handles", "malformed rows")
)]
#[case::condition_inside(
    "The client uses a fallback relay in case of outages.",
    "The client uses a fallback relay for outages.",
    ("client", "uses", "a fallback relay for outages")
)]
#[case::dash_aside(
    "The search API requires an API key - double check.",
    "The search API requires an API-key header.",
    ("search API", "requires", "an API-key header")
)]
#[case::person_role(
    "The tenant admin is Jo.",
    "The admin console requires Okta SSO.",
    ("admin console", "requires", "Okta SSO")
)]
#[case::diagnosis(
    "The bottleneck is the JSON serializer.",
    "The serializer is simd-json.",
    ("serializer", "is", "simd-json")
)]
#[case::session_work(
    "The failing test is `test_refund_partial`.",
    "The smoke test is `test_health`.",
    ("smoke test", "is", "test_health")
)]
#[case::short_perfect(
    "The worker has used Redis for years.",
    "The worker has a Redis lock.",
    ("worker", "has", "a Redis lock")
)]
fn a_general_rule_drops_its_trap_and_keeps_a_fact_of_its_shape(
    #[case] trap: &str,
    #[case] fact: &str,
    #[case] expected: (&str, &str, &str),
) {
    assert_eq!(triples(trap), vec![], "{trap}");
    let (s, p, o) = expected;
    assert_eq!(triples(fact), vec![triple(s, p, o)], "{fact}");
}

#[rstest]
#[case::afaik("The worker uses Redis afaik.")]
#[case::imo("The worker is the bottleneck imo.")]
#[case::hardly("The worker hardly uses the cache.")]
#[case::barely("The exporter barely handles large files.")]
fn drops_a_hedge_or_a_near_negation_after_the_fact(#[case] text: &str) {
    assert_eq!(triples(text), vec![]);
}

#[test]
fn a_plain_word_ends_its_sentence_before_a_lower_case_name() {
    assert_eq!(
        triples("The plugin uses JUCE modules. pluginval passes at strictness level 8."),
        vec![triple("plugin", "uses", "JUCE modules")]
    );
    assert_eq!(
        triples("The CLI supports three shells incl. fish and zsh."),
        vec![triple("CLI", "supports", "three shells incl. fish and zsh")],
        "a listed abbreviation keeps its sentence whole"
    );
}

#[test]
fn each_line_of_a_note_is_read_on_its_own_unless_it_carries_on_the_one_before() {
    assert_eq!(
        triples("ledger stores amounts as integer minor units\nrounding bug fixed in #231"),
        vec![triple("ledger", "stores", "amounts as integer minor units")]
    );
    assert_eq!(
        triples("the sim\nreads from the shared scratch volume"),
        vec![],
        "a short label over a line with no subject is no sentence"
    );
    assert_eq!(
        triples("The cache uses Redis and\nthe queue uses SQS"),
        vec![
            triple("cache", "uses", "Redis"),
            triple("queue", "uses", "SQS")
        ],
        "a line that ends on a conjunction goes on below"
    );
}

#[test]
fn a_labelled_line_is_set_apart_from_plain_statements() {
    assert_eq!(
        triples("Storage: the media service uses S3 for originals."),
        vec![]
    );
    assert_eq!(
        triples("Media notes:\nthe media service uses S3 for originals"),
        vec![triple("media service", "uses", "S3 for originals")]
    );
}

proptest::proptest! {
    #[test]
    fn any_text_gives_well_formed_facts(text in "(?s).{0,200}") {
        for fact in extract(&text) {
            proptest::prop_assert!(!fact.subject.is_empty() && !fact.object.is_empty());
            proptest::prop_assert!(!fact.subject.contains('`') && !fact.object.contains('`'));
            let dated = fact.valid_from.is_some();
            let expected = if dated { DATED_CONFIDENCE } else { UNDATED_CONFIDENCE };
            proptest::prop_assert_eq!(fact.confidence, expected);
        }
    }

    #[test]
    fn sentence_like_text_never_panics(
        words in proptest::collection::vec(
            "(The|the|uses|use|is|are|must|have|has|runs|on|to|Currently|API|calls|`x y`|,|2026-03-01|Since|As of|\\.|;|\\n|- |and|only|at|40|ms|%|March|2,|2026|v3.0,|than|\\[ \\])",
            0..14,
        )
    ) {
        extract(&words.join(" "));
    }
}

#[test]
fn a_window_drops_duplicates_and_keeps_at_most_five() {
    let texts = [
        "The queue uses Redis.",
        "the queue uses redis.",
        "The cache uses Memcached. The hub listens on port 7443.",
        "The worker requires a lease. The spool stores redacted lines.",
        "The daemon runs on Linux. The CLI defaults to JSON output.",
    ];
    let window = extract_window(texts);
    assert_eq!(window.len(), MAX_PER_WINDOW);
    let subjects: Vec<(usize, &str)> = window
        .iter()
        .map(|(i, c)| (*i, c.subject.as_str()))
        .collect();
    assert_eq!(
        subjects,
        [
            (0, "queue"),
            (2, "cache"),
            (2, "hub"),
            (3, "worker"),
            (3, "spool")
        ]
    );
}
