//! The rule extractor: facts from plain sentences, with no model.
//!
//! It is what runs when no model provider is configured, so it must never make memory worse.
//! A wrong fact recalled into a later session costs more than a missing one, because the reader
//! trusts it. So every stage is a filter that drops what it is unsure of, and a fact survives
//! only as a short, declarative "subject verb object" sentence about how things are now.
//!
//! The pipeline:
//!
//! 1. Lines. Session text mixes prose with commands, compiler output, stack traces, diffs, logs,
//!    code and configuration. Lines that look like any of those are dropped first, and they also
//!    end the paragraph they interrupt, so a wrapped sentence is never glued to output. So is a
//!    line under a one-word label ("Storage: ...", "todo: ..."), and a lower-case line joins the
//!    one before only when it visibly carries on its sentence: notes hold a statement per line.
//! 2. Sentences. A paragraph is cut at `.`, `!`, `?` and `;` followed by a space, except after an
//!    abbreviation ("e.g."); a period inside a token ("Node 22.4", "config.toml") never cuts.
//! 3. Shape. A sentence is kept only when it states something: no question, instruction,
//!    pronoun opening, condition, hedge, negation, plan, past event, comparison, example, aside,
//!    passing arrangement ("still", "for now", "for one release", "... now") or reference to
//!    what was said before ("instead").
//! 4. Verb. The first verb from a fixed list that is used as a verb splits the sentence into
//!    subject and object. Statements joined by "and", each with its own subject and verb, are
//!    read one by one; a second verb sharing the subject drops the sentence. Predicates are a
//!    fixed vocabulary, whose only plural forms are "are", "require", "store" and "run".
//! 5. Quality gate. Both sides must be short, concrete phrases without a second clause.
//! 6. Standing. Session summaries are full of things that are true only for a while: readings
//!    ("p99 latency is 40 ms"), passing states ("The queue is empty"), events ("The deploy is
//!    at 3 pm"), people ("Jordan is the reviewer") and checks that a fix works ("now handles
//!    unknown attributes without erroring"). None of them is kept, while a configured value
//!    ("The HTTP timeout is 10 seconds") is how things are and stays. After "is", a fact names
//!    something ("is Postgres 15", "is the source of truth") or how it is set up ("is built
//!    with Vite", "is stored in Vault"); a bare state ("is untouched", "are updated", "is off")
//!    or a place ("is in the PR description", "is in `figures/fig3.pdf`") is the session's
//!    news, and a bare name defined by its kind ("Rust is a systems programming language") is
//!    what anyone knows rather than how this project is built.
//!
//! The word lists are plain strings of space-separated words: they are read by people far more
//! often than by the program, and a list per line keeps them short.

use std::collections::HashSet;
use std::sync::LazyLock;

use jiff::civil::Date;
use jiff::tz::TimeZone;
use regex_automata::meta::Regex;

use super::Candidate;

mod dates;
mod lines;

use dates::{dated, iso_date};
use lines::{opens_sentence, paragraphs};

/// Confidence of a rule-extracted fact with a date, and without one.
pub const DATED_CONFIDENCE: f64 = 0.55;
pub const UNDATED_CONFIDENCE: f64 = 0.45;
/// At most this many facts per window.
pub const MAX_PER_WINDOW: usize = 5;

/// Facts in one text (no per-window cap), in the order they appear.
pub fn extract(text: &str) -> Vec<Candidate> {
    paragraphs(text)
        .iter()
        .flat_map(|p| sentences(p))
        .flat_map(facts)
        .collect()
}

/// Facts in one window of texts: each text's facts in order, each fact once (same subject,
/// predicate and object, ignoring case), the first [`MAX_PER_WINDOW`]; with the index of the
/// text each came from.
pub fn extract_window<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<(usize, Candidate)> {
    let mut seen = HashSet::new();
    texts
        .into_iter()
        .enumerate()
        .flat_map(|(i, t)| extract(t).into_iter().map(move |c| (i, c)))
        .filter(|(_, c)| {
            seen.insert((
                c.subject.to_lowercase(),
                c.predicate.to_lowercase(),
                c.object.to_lowercase(),
            ))
        })
        .take(MAX_PER_WINDOW)
        .collect()
}

// 2. Sentences --------------------------------------------------------------------------------

/// Words whose period belongs to the word rather than ending the sentence.
const ABBREVIATIONS: &str = "e.g. i.e. etc. vs. cf. approx. incl. esp. fig. no. dr. mr. mrs. \
    ms. st. jr. inc. ltd. co. al. ca. resp. min. max.";

/// Sentences and `;`-separated clauses of a paragraph, in order.
fn sentences(paragraph: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    let mut chars = paragraph.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '`' {
            in_code = !in_code;
        }
        if in_code || !matches!(c, '.' | '!' | '?' | ';') {
            continue;
        }
        // "22.4", "config.toml": a period inside a token never ends a sentence.
        let next = chars.peek().map(|&(_, c)| c);
        if next.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let end = i + c.len_utf8();
        if c == '.' && next.is_some() {
            let word = paragraph[start..end]
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or("")
                .to_lowercase();
            // An initial ("v. 3"), or a lower-case word after the period, means the period
            // was an abbreviation's; after a number the word is a unit ("380 ms.", "1.8 s.")
            // and its period ends the sentence. So does the period of a plain word of five
            // letters or more, even before a name in lower case ("without glitches.
            // pluginval passes"): abbreviations are short or listed.
            let after = paragraph[end..].trim_start();
            let initial = word.chars().count() == 2 && word.starts_with(char::is_alphabetic);
            let unit = paragraph[start..end]
                .split_whitespace()
                .nth_back(1)
                .is_some_and(|w| w.ends_with(|c: char| c.is_ascii_digit()));
            let whole_word = word.len() > 5
                && word[..word.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_lowercase());
            if (has(ABBREVIATIONS, &word) || initial) && !unit
                || !(opens_sentence(after) || whole_word)
            {
                continue;
            }
        }
        out.push(paragraph[start..end].trim());
        start = end;
    }
    out.push(paragraph[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

// 3. Shape ------------------------------------------------------------------------------------

fn has(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

/// Words that stand for something said elsewhere; a fact must name what it is about.
const PRONOUNS: &str = "it its it's this that these those they them we i i'm you he she there \
    there's here here's our my your their his her one what which who that's they're we're \
    you're us me him itself themselves";

/// Pronouns an object may hold: they point back at the subject ("reads its configuration").
const OBJECT_PRONOUNS: &str = "its their one";

/// Openings of instructions that no subject can follow.
const INSTRUCTIONS: &str = "please always never don't do let's let make ensure remember avoid \
    try consider note be feel go see double-check";

/// Base-form verbs. First in a sentence they give an order ("Store uploads in the bucket"),
/// unless the next word is the subject's head noun and the verb follows it ("Commit messages
/// must ...", "Cache keys are ...").
const BASE_VERBS: &str = "add remove set check install update change fix create delete build \
    open close write read put move rename replace restart stop start configure enable disable \
    import export deploy test verify look apply bump prefer push pull commit merge rebase revert \
    upgrade downgrade drop clear reset wrap split refactor document mark tag skip ignore include \
    exclude switch convert generate print list show find search get fetch load save pass give \
    take copy edit modify patch clean format lint click select choose pick wait retry kill keep \
    use run store cache call send pin handle expose serve target support require need log return \
    define declare implement register wire mock stub rotate";

/// Openings of clauses that qualify the sentence or hang it on something said before.
const OPENERS: &str = "if when whenever unless although though because while once after \
    before until since as so but and or then however otherwise yet whether where how why thus \
    hence instead also even only just actually basically anyway well ok okay yes no sure thanks \
    great nice hmm oh hi hello sorry from to for with in on at by into of about like unlike per \
    via during within without across between under over against provided providing assuming \
    given suppose supposing whatever whoever";

/// Words that make a sentence unsure, negative, future, past, relative, evaluative or
/// personal: each means it does not state a plain present fact.
const DISQUALIFIERS: &str = concat!(
    // Hedges.
    "might may maybe probably possibly perhaps could should would can seems seem seemed appears \
     appear likely unlikely unclear guess think believe suppose assume apparently presumably \
     usually often sometimes typically generally mostly rarely occasionally kinda sorta somehow \
     roughly supposedly supposed hopefully ideally arguably ought afaik iirc imo imho ",
    // Negation, and the adverbs that all but negate ("hardly uses the cache").
    "not no never none nothing nobody neither nor cannot nowhere anymore hardly barely seldom \
     scarcely ",
    // Plans and the future.
    "will shall going gonna plan plans planned planning soon later eventually tomorrow next \
     upcoming todo tbd intend intends want wants wanted hope propose proposed proposal someday \
     wish ",
    // Past events and moments that pass; "still" marks a state about to change.
    "was were had did been yesterday ago earlier previously formerly last recently originally \
     today tonight morning afternoon evening still temporarily meanwhile stopgap workaround \
     interim provisional ",
    // Evaluation and degree.
    "better worse best worst love hate like prefer prefers very quite really fairly somewhat \
     extremely slightly totally incredibly super bit too much ",
    // Vague amounts.
    "etc various several stuff things whatever somewhere something anything everything ",
    // The speaker and the listener.
    "i i'm i've i'd me my we we're we've our us you your you're",
);

/// Phrases that make a statement passing, an example or a change rather than how things are:
/// "uses a mock backend for now", "a framework such as Axum", "is 0.87, up from 0.85".
const NOT_STANDING: &[&str] = &[
    "for now",
    "for the time being",
    "for the moment",
    "right now",
    "at the moment",
    "in the meantime",
    "this week",
    "this sprint",
    "e.g",
    "i.e",
    "for example",
    "for instance",
    "such as",
    "in progress",
    "in flight",
    "in review",
    "on hold",
    "up from",
    "down from",
    "down to",
];

/// Word endings that hide a negation, a modal or a person ("doesn't", "it'll", "we'd").
const DISQUALIFYING_SUFFIXES: &[&str] = &["n't", "'ll", "'d", "'ve", "'re", "'m"];

/// Comparisons, which an object may not make. A subject may be qualified by one ("Uploads
/// larger than 5 GB must use multipart transfer"), an object that compares is an opinion.
const COMPARATIVES: &str = "than more less fewer faster slower bigger smaller larger cheaper \
    easier harder simpler twice half";

/// Past-tense openings of change logs ("Fixed the parser", "Switched to Postgres").
const PAST_OPENINGS: &str = "fixed added removed changed updated switched moved replaced renamed \
    deleted refactored reverted merged deployed bumped upgraded downgraded migrated implemented \
    created wrote ran tried found noticed saw made broke got turned figured decided agreed \
    started finished dropped introduced rewrote ported cleaned regenerated";

/// Whole-sentence checks, before looking for a verb.
fn shape_ok(words: &[Word]) -> bool {
    let first = &words[0];
    // "It's", "That's": a pronoun with its verb attached.
    let bare = first.key.trim_end_matches("'s");
    if !first.is_code() && has(PRONOUNS, bare)
        || first.is(INSTRUCTIONS)
        || first.is(OPENERS)
        || first.is(PAST_OPENINGS)
        || first.is(VAGUE_QUANTIFIERS)
    {
        return false;
    }
    if !first.is_code() && !first.text.starts_with(char::is_alphabetic) {
        return false;
    }
    // "Reproduced the crash on ...": a past participle followed by its object narrates.
    if first.key.len() > 4 && first.key.ends_with("ed") && words[1].is("the a an") {
        return false;
    }
    let plain = || words.iter().enumerate().filter(|(_, w)| !w.is_code());
    // "Rust 1.78 or later" is a lower bound, not a plan.
    let bound = |i: usize| words[i].key == "later" && i > 0 && words[i - 1].is("or and");
    // "must not call the ledger", "must never be logged": a prohibition is a rule, and the
    // negation stays in its object.
    let prohibition = |i: usize| i > 0 && words[i - 1].is("must") && words[i].is("not never");
    let disqualified = plain().any(|(i, w)| {
        w.is(DISQUALIFIERS) && !bound(i) && !prohibition(i)
            || DISQUALIFYING_SUFFIXES.iter().any(|x| w.key.ends_with(x))
            // A dash on its own sets off an aside or a remark: "requires an API key - check".
            || !w.key.is_empty() && w.key.chars().all(|c| matches!(c, '-' | '–' | '—'))
            // Code and markup outside backticks, quoted fragments, e-mail addresses.
            || w.text.contains(CODE_CHARS)
            || w.text.contains("::")
            || w.text.starts_with('\'')
            || w.text.ends_with('\'')
    });
    // "used to" is a past habit; a colon inside a sentence introduces a list or a quote.
    let used_to = has_phrase(words, "used to");
    let inner_colon = plain()
        .take(words.len() - 1)
        .any(|(_, w)| w.text.ends_with(':'));
    let not_standing = NOT_STANDING.iter().any(|p| has_phrase(words, p));
    let conditional = CONDITIONS.iter().any(|p| has_phrase(words, p));
    // "The CI run is green now", "The importer handles malformed rows now": a state just
    // reached. "now" before the verb only says the fact is current ("The API now uses JWT").
    let reached = words.last().is_some_and(|w| w.is("now"));
    let leaning = points_back(words) || for_releases(words);
    !(disqualified || used_to || inner_colon || not_standing || conditional || reached || leaning)
}

/// Conditions that do not open the sentence: "uses a fallback relay in case of outages",
/// "writes to S3 depending on the region". The fact holds only some of the time.
const CONDITIONS: &[&str] = &[
    "in case",
    "as long as",
    "so long as",
    "depending on",
    "provided that",
    "providing that",
];

/// Whether the sentence leans on one said before it: "Service accounts use API keys instead"
/// (of what?), "The CLI reads YAML as well", "Likewise, the worker ...". A fact carries what it
/// is measured against with it: "instead of ECS", "as well as JSON".
fn points_back(words: &[Word]) -> bool {
    let next_is = |i: usize, key: &str| words.get(i + 1).is_some_and(|n| n.key == key);
    words.iter().enumerate().any(|(i, w)| {
        let as_well = w.is("well") && i > 0 && words[i - 1].is("as") && !next_is(i, "as");
        w.is("instead") && !next_is(i, "of") || as_well || w.is("likewise similarly")
    })
}

/// Units of a project's cadence rather than of time.
const RELEASE_UNITS: &str = "release releases sprint sprints cycle cycles iteration iterations \
    milestone milestones";

/// Whether the sentence bounds its arrangement by releases: "is kept read-only for one
/// release", "stays for two sprints". That is a transition which the release named ends; a
/// policy is measured in time ("Keys are kept for 24 hours"). "for the release branch" names a
/// branch: the unit must end the phrase.
fn for_releases(words: &[Word]) -> bool {
    let ends_phrase = |j: usize| {
        words
            .get(j + 1)
            .is_none_or(|n| n.is(PREPOSITIONS) || n.is("and or"))
            || words[j].text.ends_with(',')
    };
    words.iter().enumerate().any(|(i, w)| {
        w.is("for")
            && (i + 2..words.len().min(i + 5)).any(|j| words[j].is(RELEASE_UNITS) && ends_phrase(j))
    })
}

/// Whether the words of `phrase` come one after the other in `words`.
fn has_phrase(words: &[Word], phrase: &str) -> bool {
    let phrase: Vec<&str> = phrase.split_whitespace().collect();
    words.windows(phrase.len()).any(|w| {
        w.iter()
            .zip(&phrase)
            .all(|(w, p)| !w.is_code() && w.key == *p)
    })
}

const CODE_CHARS: &[char] = &[
    '=', '<', '>', '|', '\\', '$', '@', '*', '#', '~', '^', '`', '(', ')', '{', '}', '[', ']', ';',
];

// 4. Verb -------------------------------------------------------------------------------------

/// A verb the extractor understands: its singular and plural forms, and the preposition that
/// belongs to it when it comes right after.
struct Verb {
    singular: &'static str,
    plural: &'static str,
    particle: Option<&'static str>,
}

const fn verb(
    singular: &'static str,
    plural: &'static str,
    particle: Option<&'static str>,
) -> Verb {
    Verb {
        singular,
        plural,
        particle,
    }
}

/// With the preposition first, so that "runs on" wins over "runs". "depends", "listens" and
/// "defaults" only count with theirs: alone they mean something else.
const VERBS: &[Verb] = &[
    verb("depends", "depend", Some("on")),
    verb("listens", "listen", Some("on")),
    verb("defaults", "default", Some("to")),
    verb("runs", "run", Some("on")),
    verb("writes", "write", Some("to")),
    verb("reads", "read", Some("from")),
    verb("uses", "use", None),
    verb("is", "are", None),
    verb("requires", "require", None),
    verb("stores", "store", None),
    verb("must", "must", None),
    verb("runs", "run", None),
    verb("writes", "write", None),
    verb("reads", "read", None),
    verb("targets", "target", None),
    verb("supports", "support", None),
    verb("has", "have", None),
    verb("keeps", "keep", None),
    verb("caches", "cache", None),
    verb("calls", "call", None),
    verb("sends", "send", None),
    verb("needs", "need", None),
    verb("owns", "own", None),
    verb("contains", "contain", None),
    verb("handles", "handle", None),
    verb("exposes", "expose", None),
    verb("serves", "serve", None),
    verb("pins", "pin", None),
    verb("expects", "expect", None),
];

/// Finite verbs and auxiliaries. One right after a candidate verb shows that the candidate was
/// a noun: "API calls use", "Build caches are".
const FINITE: &str = "is are was were has have had must can could will would should may might \
    does do did uses requires stores runs depends listens defaults writes reads targets supports \
    keeps caches calls sends needs owns contains handles exposes serves pins expects returns \
    gets sets makes takes loads saves creates builds checks retries starts stops works fails \
    passes lives";

/// Verb forms that are as often plural nouns: "calls", "runs", "stores", "handles".
const PLURAL_NOUNS: &str = "uses runs stores caches calls handles reads writes targets pins \
    keeps supports";

/// Verbs that are rarely nouns: one inside a subject or an object means a second clause.
const CLAUSE_VERBS: &str = "is are was were has had must can could will would should may might \
    does did uses requires depends listens defaults contains exposes serves expects needs owns \
    lives fails means becomes gets makes takes goes says knows lets";

/// Words that open a clause inside a phrase.
const CLAUSE_WORDS: &str = "which who whom whose where when whenever if because so although \
    though while whereas unless until but since what how why whether once that";

/// Words that, right before a candidate verb, make it a noun ("the cache stores", "each run
/// uses", "the number of calls is").
const NOUN_MARKERS: &str = "the a an this that these those each every any some no its their \
    our your my his her all both one per another other which whose of for to in on with by from \
    and or";

/// Plural verb forms that are never nouns, so a singular subject before one is a slip of
/// grammar rather than a noun phrase.
const VERB_ONLY: &str = "require depend listen contain expose expect";

/// The plural forms a fact may take as its predicate. Predicates are a fixed vocabulary, so
/// that facts about one thing line up when they are recalled, and it holds no other plural:
/// "Tests require Docker" is a fact, while "live streams use LL-HLS" and "tests need Docker"
/// are left out, as "need" always was. The other plurals still mark where a clause's verb is.
const PLURAL_PREDICATES: &str = "are require store run";

/// Participles after "has" that make a past event ("has changed", "has been"): the irregular
/// ones, and "used", too short for the "-ed" rule.
const PARTICIPLES: &str = "been gone done become made taken broken written seen given begun \
    grown shown got gotten had run come fallen left lost put set found kept built sent used";

/// Where a verb was found: its first word, how many words it spans, and whether the form was
/// plural ("require", "are").
struct Found {
    at: usize,
    len: usize,
    plural: bool,
}

/// The first listed verb used as a verb, or `None` when there is none or it cannot be told
/// from a noun.
fn find_verb(words: &[Word]) -> Option<Found> {
    for at in 1..words.len() {
        let w = &words[at];
        if w.is_code() || words[at - 1].is(NOUN_MARKERS) || modified_noun(words, at) {
            continue;
        }
        let Some((verb, plural)) = listed(words, at) else {
            continue;
        };
        if verb.particle.is_none() && has("depends depend listens listen defaults default", &w.key)
        {
            continue;
        }
        let len = 1 + usize::from(verb.particle.is_some());
        if w.is("is are must has") {
            return Some(Found { at, len, plural });
        }
        let next = words.get(at + len);
        if next.is_some_and(|n| n.is(FINITE)) {
            continue;
        }
        // "API calls use the wrapper" against "The API uses cache headers": a base form right
        // after an -s form that is also a plural noun leaves open which is the verb, unless a
        // determiner follows it.
        let base_next = listed(words, at + len).is_some_and(|(_, p)| p);
        if w.is(PLURAL_NOUNS) && base_next {
            if words.get(at + len + 1).is_some_and(|t| t.is(NOUN_MARKERS)) {
                continue;
            }
            return None;
        }
        return Some(Found { at, len, plural });
    }
    None
}

/// Whether the word at `at` is a plural noun after a participle that describes it: "Two
/// deprecated calls needed replacing", "the failed runs". A verb follows its subject's noun
/// ("The deprecated client calls ..."), not a participle.
fn modified_noun(words: &[Word], at: usize) -> bool {
    let before = &words[at - 1];
    let participle = before.text.starts_with(char::is_lowercase)
        && before.key.len() > 4
        && before.key.ends_with("ed");
    participle && words[at].is(PLURAL_NOUNS)
}

/// The listed verb whose form is the word at `at`, and whether the form is plural.
fn listed(words: &[Word], at: usize) -> Option<(&'static Verb, bool)> {
    let w = words.get(at)?;
    if w.is_code() {
        return None;
    }
    VERBS.iter().find_map(|v| {
        let particle_ok = v
            .particle
            .is_none_or(|p| words.get(at + 1).is_some_and(|n| n.key == p));
        if !particle_ok {
            None
        } else if w.key == v.singular {
            Some((v, false))
        } else if w.key == v.plural {
            Some((v, true))
        } else {
            None
        }
    })
}

/// A plural verb needs a plural subject; otherwise the "verb" was a noun ("Test run").
/// The head noun is the last word before any preposition: "All timestamps in the API are".
fn plural_subject(subject: &[Word]) -> bool {
    if subject.iter().any(|w| w.is("and both all")) {
        return true;
    }
    let Some(head) = head(subject) else {
        return false;
    };
    let head = head.key.as_str();
    head.len() > 2 && head.ends_with('s') && !head.ends_with("ss") && !head.ends_with("us")
}

/// The head noun of a subject: its last word before any preposition ("timestamps" in "All
/// timestamps in the API").
fn head<'w, 'a>(subject: &'w [Word<'a>]) -> Option<&'w Word<'a>> {
    let before = subject.iter().take_while(|w| !w.is(PREPOSITIONS)).count();
    subject.get(before.max(1) - 1)
}

const PREPOSITIONS: &str = "of in on at for with from to by under over per via into about";

/// What may follow the verb: not a progressive ("is running"), a perfect ("has changed"), an
/// infinitive ("needs to", "is to") or a "that" clause.
fn verb_follow_ok(predicate: &str, object: &[Word]) -> bool {
    let Some(next) = object.first() else {
        return false;
    };
    let key = next.key.as_str();
    if key == "to" || key == "that" {
        return false;
    }
    let gerund = key.ends_with("ing") && !next.is("string thing spring");
    match predicate {
        // "is about the parser" gives a topic, not a fact.
        "is" | "are" => {
            let judged = object
                .iter()
                .find(|w| !w.is("the a an") && !w.is(SOFT_ADVERBS))
                .is_some_and(|w| w.is(EVALUATIVE));
            !(gerund || judged || key == "about") && complement_ok(object)
        }
        // "The docs need regenerating": work to do.
        "needs" | "need" | "requires" | "require" => !gerund,
        "has" | "have" => !perfect(object),
        "must" => !(key == "have" && perfect(&object[1..])),
        _ => true,
    }
}

/// Whether a phrase after "has" opens with a participle: "has changed", "must have been". A
/// capitalised word is a name ("DeepSpeed"), whatever it ends with.
fn perfect(rest: &[Word]) -> bool {
    rest.first().is_some_and(|w| {
        // "rebuilt", "rerun", "reset": a participle done again is one too.
        let again = w
            .key
            .strip_prefix("re")
            .is_some_and(|stem| has(PARTICIPLES, stem));
        w.is(PARTICIPLES)
            || w.text.starts_with(char::is_lowercase)
                && (again || w.key.len() > 4 && w.key.ends_with("ed"))
    })
}

/// Participles of verbs that set up how something is made, kept or run. Followed by their
/// complement they make a passive that lasts ("is built with mdBook", "are kept in the HSM");
/// any other participle after "is" reports what just happened to it ("is deleted", "are
/// updated", "is attached to the PR").
const ARRANGEMENTS: &str = "built written kept stored deployed hosted served backed managed \
    owned signed encrypted trained retrained generated configured pinned licensed compiled \
    mounted exposed defined handled limited provisioned sent uploaded set versioned routed \
    replicated partitioned sharded cached indexed keyed scoped bound mapped authenticated \
    validated published exported packaged bundled distributed installed vendored derived \
    computed sourced loaded read fetched mirrored archived retained compressed serialised \
    serialized encoded formatted named prefixed tagged gated protected restricted isolated \
    implemented powered driven maintained run rendered logged emitted \
    produced consumed proxied terminated hashed salted stamped enforced capped throttled \
    rate-limited split shared";

/// Properties that belong to a design rather than to a moment: "The API is stateless".
const PROPERTIES: &str = "stateless idempotent immutable read-only append-only write-only \
    single-threaded multi-tenant";

/// Endings of adjectives and participles. A lower-case word after "is" that ends in one
/// describes a state ("is untouched", "is available", "is tidy", "is frozen").
const STATE_ENDINGS: &[&str] = &[
    "ed", "en", "able", "ible", "ful", "ous", "ive", "ic", "al", "y", "less", "ent", "ant", "ish",
    "ary", "ile", "ing",
];

/// What may follow "is" or "are" in a fact: a noun phrase ("the source of truth", "Postgres
/// 15", "a per-process LRU", "trunk"), a passive that sets something up ("built with Expo",
/// "stored only in the encrypted column") or a property of the design ("stateless"). A state
/// ("is unaffected", "is tidy now"), a place ("is in the PR description", "is at epoch 17")
/// or a bare participle ("are updated") is news from the session, which the next one outdates.
fn complement_ok(object: &[Word]) -> bool {
    let lead = object
        .iter()
        .position(|w| !w.is(SOFT_ADVERBS))
        .map_or(&[][..], |i| &object[i..]);
    let Some(first) = lead.first() else {
        return false;
    };
    let key = first.key.as_str();
    if first.is_code()
        || amount(lead).is_some()
        || first.text.starts_with(char::is_uppercase)
        || first.is("the a an its their one")
        || first.is(PROPERTIES)
    {
        return true;
    }
    if first.is(ARRANGEMENTS) {
        return lead.len() > 1;
    }
    // "are batched daily at 16:00 CET", "is rotated every 90 days": a participle on a schedule
    // says how it runs, however it was set up.
    if perfect(lead) && lead.get(1).is_some_and(|w| w.is(RECURRENCE)) {
        return true;
    }
    // "is rebuilt", "is done": a bare participle, regular or not, reports what just happened.
    if perfect(lead) && lead.len() == 1 {
        return false;
    }
    // "in ISO 20022 format", "in Go": a format or a language, not a place; a file or a folder
    // ("in `figures/fig3.pdf`") is where something was put. "at 05:00 UTC" is a time, which
    // `standing` keeps only when it recurs.
    if first.is(PREPOSITIONS) {
        let rest = &lead[1..];
        let named = rest.first().is_some_and(|w| {
            w.is_code() && !file_path(w)
                || w.text.starts_with(char::is_uppercase)
                || amount(rest).is_some()
        });
        return key == "in" && named || key == "at" && amount(rest).is_some();
    }
    // A name or an identifier ("orders-v2", "sqlx-cli", "events-dlq") and a plain noun
    // ("trunk", "version 7.2") are what the subject is; a word shaped like an adjective or a
    // participle is how it is for now, and so is a particle, alone ("is off in production",
    // "is well documented") or in a compound ("up-to-date", "out-of-sync", "well-tested").
    if key.contains(|c: char| c.is_ascii_digit() || "_./".contains(c)) {
        return true;
    }
    let state =
        |part: &str| part.starts_with("un") || STATE_ENDINGS.iter().any(|e| part.ends_with(e));
    let last = key.rsplit('-').next().unwrap_or(key);
    let adverbial = key
        .split('-')
        .any(|part| has("up out off in on to of well", part));
    !(state(if key.contains('-') { last } else { key }) || adverbial)
}

/// Whether a word names a file or a folder: "`figures/fig3.pdf`", "`docs/`", "`notes.md`".
fn file_path(w: &Word) -> bool {
    let name = w
        .text
        .trim_matches(|c: char| !c.is_alphanumeric() && !"/\\".contains(c));
    let extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !ext.is_empty() && ext.bytes().all(|b| b.is_ascii_alphabetic())
    });
    name.contains(['/', '\\']) || extension
}

// 5. Quality gate -----------------------------------------------------------------------------

/// Subjects too generic to be worth remembering ("The user is happy", "The result is good").
const GENERIC_SUBJECTS: &str = "user users customer customers answer code result results thing \
    problem problems issue issues fix solution idea approach question output response reply \
    message change changes task goal plan step option way point reason part rest case other \
    others everyone everybody someone somebody team person people work error bug all both each \
    either first second latter former same above below following default current new old \
    situation state status version example file files function method value number name list \
    info information time context setup reviewer manager boss";

/// Subjects about life around the project rather than the project: any word of the subject.
const OFF_TOPIC: &str = "weather lunch dinner breakfast coffee meeting meetings vacation weekend \
    holiday deadline office birthday party laptop desk conversation discussion chat standup \
    retro sprint";

/// People in and around the team. As the head of a subject ("The new hire needs ...") or of
/// what a subject "is" ("Jordan is the reviewer") they make the sentence about someone rather
/// than the project; a team owning a component is about the project.
const PEOPLE: &str = "reviewer reviewers approver approvers assignee assignees maintainer \
    maintainers author authors owner owners manager managers lead hire hires intern interns \
    teammate teammates colleague colleagues developer developers engineer engineers designer \
    designers member members stakeholder stakeholders contributor contributors contractor \
    contractors consultant consultants newcomer newcomers pm pms admin admins administrator \
    administrators contact contacts sponsor sponsors champion champions";

/// The product's users. "Admin users must ..." is a rule of the product, but their things and
/// what someone "is" are about a person: "The user's laptop runs ...", "Sam is the customer".
const USERS: &str = "user users customer customers";

/// Where a person is: "Sam is on call this week".
const WHEREABOUTS: &[&str] = &[
    "on call",
    "on-call",
    "on vacation",
    "on holiday",
    "on leave",
    "out of office",
    "off sick",
    "away",
];

/// Quantifiers that make a subject vague ("Some tests require Docker").
const VAGUE_QUANTIFIERS: &str = "some many most few several various certain other any such much \
    lots plenty";

/// Objects that say nothing a later session could use, once articles and adverbs like "now"
/// are set aside.
const VAGUE_OBJECTS: &str = "thing everything something anything nothing true false case set \
    same different problem issue bug option way answer idea key up down on off back gone \
    present absent enough lot lots yes";

/// Judgements and passing states. As the first word after "is" they make the sentence an
/// opinion or news ("is happy with the demo", "is broken again", "is almost full", "is down",
/// "is up 12%", "is scheduled for Friday").
const EVALUATIVE: &str = "done fine good ok okay great bad nice cool awesome perfect ready \
    working broken correct wrong right important necessary needed required possible impossible \
    clear unclear weird strange odd interesting annoying confusing slow fast easy hard tricky \
    simple complicated complex messy happy sad sure fixed resolved merged finished complete \
    completed green red passing failing stuck huge big small fun useful helpful mess pain fault \
    crucial critical essential obvious trivial ugly beautiful flaky stable unstable buggy \
    missing tight loose busy late early hot cold warm cheap expensive tired terrible horrible \
    amazing excellent poor lovely boring exciting urgent overdue outdated stale wip blocked idle \
    offline online healthy unhealthy empty full almost nearly halfway partly partially clean \
    unchanged locked pending down up flat out over back behind ahead paused underway ongoing \
    scheduled due booked live degraded quarantined skipped unavailable delayed";

/// Heads of subjects that name a diagnosis, a step of the conversation or a piece of work
/// rather than a part of the project ("The root cause is ...", "The build error is ...", "The
/// bottleneck is ...", "The PR is merged"): what they are changes as the work goes on. "task" is not one: a named task
/// ("the dedupe task") is a step of a pipeline, and a bare "The task" is a generic subject.
const DIAGNOSES: &str = "cause culprit reason problem issue bug error fix solution workaround \
    answer result question idea plan goal pr ticket incident hotfix patch commit story \
    epic bottleneck bottlenecks blocker blockers";

/// Words that tie a subject to the work of the session ("The failing test is ...", "The
/// remaining work is the admin UI", "The affected endpoint is ..."): what they pick out changes
/// as the work goes on.
const SESSION_MODIFIERS: &str = "remaining failing affected offending";

/// Adverbs next to the verb that do not change the fact ("The API also uses JWT").
const SOFT_ADVERBS: &str = "also now currently always already";

/// Adverbs that limit the fact. Before the verb, or right after "is", dropping them would state
/// more than was said ("The importer only reads CSV files", "is only reachable over the VPN").
const LIMITING: &str = "only just merely solely exclusively";

/// Openings that frame a sentence without changing its fact.
const SOFT_OPENINGS: &[&str] = &[
    "also,",
    "currently,",
    "now,",
    "note that",
    "by default,",
    "for reference,",
    "in practice,",
];

/// Words that leave a phrase unfinished when they end it.
const DANGLING: &str = "the a an and or but of to in on at by for with from into onto as than \
    that which who whose where when if because so while each every all some any both either its \
    their this these those via per about like such also then";

fn subject_ok(subject: &[Word]) -> bool {
    let (Some(first), Some(last)) = (subject.first(), subject.last()) else {
        return false;
    };
    if subject.len() > 6
        || last.is(DANGLING)
        || first.is(VAGUE_QUANTIFIERS)
        || first.is(PRONOUNS)
        || subject.len() == 1 && first.is(NOUN_MARKERS)
        || !first.is_code() && !first.text.starts_with(char::is_alphabetic)
        || has(GENERIC_SUBJECTS, &phrase_key(subject))
        || head(subject).is_some_and(|w| w.is(DIAGNOSES) || w.is(PEOPLE))
        || subject.iter().any(|w| w.is(SESSION_MODIFIERS))
        || subject.iter().any(person_possessive)
    {
        return false;
    }
    // "The release notes suggest the parameters need ...": a determiner inside a noun phrase
    // follows a preposition or a conjunction; after any other word it opens the object of an
    // unlisted verb, and the subject is a reported clause.
    let embedded = subject.windows(2).any(|pair| {
        pair[1].is("the a an this these those")
            && !pair[0].is(PREPOSITIONS)
            && !pair[0].is("and or both all")
    });
    if embedded {
        return false;
    }
    subject.iter().all(|w| {
        w.is_code()
            || !(w.text.contains(',')
                || w.is(CLAUSE_WORDS)
                || w.is(PAST_OPENINGS)
                || w.is(CLAUSE_VERBS)
                || w.is(OFF_TOPIC)
                || w.is(PRONOUNS) && !w.is(OBJECT_PRONOUNS))
    })
}

/// "The user's laptop", "reviewers' notes".
fn person_possessive(w: &Word) -> bool {
    let owner = w
        .key
        .strip_suffix("'s")
        .or_else(|| w.key.strip_suffix('\''));
    owner.is_some_and(|o| has(PEOPLE, o) || has(USERS, o))
}

fn object_ok(predicate: &str, object: &[Word]) -> bool {
    let Some(last) = object.last() else {
        return false;
    };
    if object.len() > 15 || last.is(DANGLING) {
        return false;
    }
    let clause = |i: usize| object[i].is(CLAUSE_WORDS) && !counts_times(object, i);
    let core: Vec<&Word> = strip_article(object)
        .iter()
        .filter(|w| !w.is(SOFT_ADVERBS))
        .collect();
    let core_key = core
        .iter()
        .map(|w| w.key.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if core.is_empty() || has(VAGUE_OBJECTS, &core_key) || clause(0) {
        return false;
    }
    // "twice as fast as the old one"; "TOML as well as YAML" is a list.
    let as_as =
        object.iter().filter(|w| w.key == "as").count() >= 2 && !has_phrase(object, "as well as");
    // A second verb or a clause runs two statements together, or qualifies this one; a pronoun
    // points at something only the conversation knew.
    !as_as
        && !compares(predicate, object)
        && object.iter().enumerate().all(|(i, w)| {
            w.is_code()
                || !(clause(i) || w.is(CLAUSE_VERBS) || w.is(PRONOUNS) && !w.is(OBJECT_PRONOUNS))
        })
}

/// Whether "once" at `i` counts how often ("reads the license file once at startup", "runs
/// once per deploy") rather than opening a clause ("once the cache is warm"): a preposition or
/// nothing follows it.
fn counts_times(words: &[Word], i: usize) -> bool {
    words[i].is("once") && words.get(i + 1).is_none_or(|n| n.is(PREPOSITIONS))
}

/// Whether the object compares, which makes it an opinion or news ("uses less memory than the
/// old one"). A requirement may compare ("must be longer than the idle timeout"), and a bound on
/// a noun qualifies it: "handles files larger than 2 GB".
fn compares(predicate: &str, object: &[Word]) -> bool {
    let bound = |than: usize| {
        than >= 2 && object[than].key == "than" && amount(&object[than + 1..]).is_some()
    };
    predicate != "must"
        && object
            .iter()
            .enumerate()
            .any(|(i, w)| w.is(COMPARATIVES) && !(bound(i) || w.key != "than" && bound(i + 1)))
}

// Standing facts ------------------------------------------------------------------------------

/// Heads of subjects that name a measurement ("p99 latency", "cache hit rate", "Test
/// coverage"): with a number after the verb the sentence is a reading, which the next run
/// changes.
const METRICS: &str = "latency latencies usage utilisation utilization coverage accuracy auc \
    throughput lag uptime downtime rate rates time times duration speed load loss score fps \
    depth backlog p50 p75 p90 p95 p99 p999";

/// Words that name a configured value ("The HTTP client timeout is 10 seconds", "has a 5%
/// error budget"): as the head of the subject or in the object, they make a number a setting
/// rather than a reading. In "error budget burn rate" the head is a reading.
const SETTINGS: &str = "timeout timeouts ttl limit limits cap quota quotas budget threshold \
    thresholds interval period window retention lifetime expiry port version target delay \
    backoff frequency";

/// Words that make any subject a setting: "The max payload size", "The default page size".
const SETTING_MARKERS: &str = "default max maximum min minimum configured";

/// Units of measured time, size and rate.
const UNITS: &str = "ns us µs ms s sec secs second seconds min mins minute minutes h hr hrs hour \
    hours d day days week weeks kb mb gb tb pb kib mib gib tib byte bytes fps rps qps tps";

/// Words that scale a count ("2.3 million rows", "12k users").
const MULTIPLIERS: &str = "k m bn thousand million millions billion billions";

/// Words that make a number an estimate ("around 300 MB").
const APPROXIMATIONS: &str = "around about approximately approx roughly nearly almost circa";

/// Words that make a time recur ("weekly on Sunday at 03:00 UTC"): a schedule, not an event.
const RECURRENCE: &str = "every each daily nightly weekly monthly hourly yearly annually \
    weekdays weekends mondays tuesdays wednesdays thursdays fridays saturdays sundays";

const WEEKDAYS: &str = "monday tuesday wednesday thursday friday saturday sunday";

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// How a number at the start of a phrase reads.
#[derive(Clone, Copy, PartialEq)]
enum Amount {
    /// A bare number or a count of things: "3 replicas", "Postgres 16".
    Count,
    Percent,
    /// A number with a unit of time, size or rate: "40 ms", "14MB".
    Measure,
    /// A scaled or large count: "2.3 million rows", "12k users", "1,500 users".
    Large,
}

/// The amount `words` starts with, if it starts with a number.
fn amount(words: &[Word]) -> Option<Amount> {
    let first = words.first().filter(|w| !w.is_code())?;
    if !first.key.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let digits = first
        .key
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(first.key.len());
    let suffix = &first.key[digits..];
    if first.key[..digits].contains(',') {
        return Some(Amount::Large);
    }
    let unit = match (suffix, words.get(1)) {
        ("", Some(next)) if !next.is_code() => next.key.as_str(),
        _ => suffix,
    };
    Some(if unit == "%" || unit == "percent" {
        Amount::Percent
    } else if has(UNITS, unit) {
        Amount::Measure
    } else if has(MULTIPLIERS, unit) {
        Amount::Large
    } else {
        Amount::Count
    })
}

/// Whether a key reads as a time of day: "09:30", "3pm", "pm".
fn clock(key: &str) -> bool {
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    let hour_minute = key
        .split_once(':')
        .is_some_and(|(h, m)| digits(h, 1..=2) && digits(m, 2..=2));
    let meridiem = ["am", "pm"].iter().any(|m| {
        key.strip_suffix(m)
            .is_some_and(|h| h.is_empty() || digits(h, 1..=2))
    });
    hour_minute || meridiem || key == "noon" || key == "midnight"
}

/// Adverbs that say a part does what it should ("handles stacked coupons correctly").
const WORKING: &str = "correctly properly fine flawlessly successfully cleanly";

/// Faults that "without" says are gone ("handles buffer size changes without glitches").
const FAULTS: &str = "error errors erroring glitch glitches glitching crash crashes crashing \
    failure failures failing fault faults issue issues problem problems panic panics panicking \
    regression regressions hiccup hiccups warning warnings leak leaks deadlock deadlocks hang \
    hangs hanging stall stalls stalling";

/// Whether the object vouches that the part works: "handles unknown attributes without
/// erroring", "handles gift cards correctly". That is the check of a fix just made, told in the
/// present tense; what stands is the design ("retries with backoff"), not that it now works.
fn works_now(object: &[Word]) -> bool {
    let fault_gone = |i: usize| {
        object[i].key == "without"
            && object[i + 1..]
                .iter()
                .find(|w| !w.is("a an any"))
                .is_some_and(|w| w.is(FAULTS))
    };
    has_phrase(object, "as expected")
        || (0..object.len()).any(|i| object[i].is(WORKING) || fault_gone(i))
}

/// Whether the object says how things stand, rather than giving a reading ("p99 latency is 40
/// ms", "The events table has 2.3 million rows"), a passing state, an event's time ("The
/// deploy is at 3 pm") or where a person is. A configured value is how things stand: "The HTTP
/// client timeout is 10 seconds", "targets 70% CPU utilisation".
fn standing(predicate: &str, subject: &[Word], object: &[Word]) -> bool {
    let recurs = subject.iter().chain(object).any(|w| w.is(RECURRENCE));
    let day = |w: &Word| {
        !w.is_code()
            && (w.is(WEEKDAYS) || MONTHS.contains(&w.key.as_str()) || iso_date(&w.key).is_some())
    };
    // "needs access before the demo on Thursday", "must ship by March": a day that comes once.
    // A job that runs on a day runs every week on it.
    if !recurs && !matches!(predicate, "runs" | "run") && object.iter().any(day) {
        return false;
    }
    // A requirement's numbers are what it requires.
    if predicate == "must" {
        return true;
    }
    if works_now(object) {
        return false;
    }
    let linking = matches!(predicate, "is" | "are");
    let setting = head(subject).is_some_and(|w| w.is(SETTINGS))
        || subject.iter().any(|w| w.is(SETTING_MARKERS))
        || object.iter().any(|w| w.is(SETTINGS));
    let mut lead = object;
    while let Some((first, rest)) = lead.split_first()
        && (first.is("the a an") || first.is(SOFT_ADVERBS))
    {
        lead = rest;
    }
    let estimate = object.iter().enumerate().any(|(i, w)| {
        w.is(APPROXIMATIONS) && amount(&object[i + 1..]).is_some() || w.key.starts_with('~')
    });
    // "runs in 4 minutes", "runs at 60 fps", "runs at 40% CPU": how long it took, how fast it
    // went, how hard it worked.
    let took = lead.first().is_some_and(|w| w.is("in within under at"))
        && matches!(amount(&lead[1..]), Some(Amount::Measure | Amount::Percent));
    let quantity = amount(lead);
    // "uses 2 GB of memory", "uses 90% of the pool": a reading, whatever it is measured against.
    let usage = matches!(predicate, "uses" | "use")
        && matches!(quantity, Some(Amount::Percent | Amount::Measure));
    let reading = match quantity {
        Some(Amount::Percent) => linking || matches!(predicate, "has" | "have"),
        Some(Amount::Measure) => linking,
        Some(Amount::Large) => !matches!(
            predicate,
            "targets" | "target" | "requires" | "require" | "needs" | "need" | "defaults to"
        ),
        Some(Amount::Count) | None => false,
    };
    // "Rates are cached for 15 minutes": a passive that sets a measure up is no reading of it.
    let arranged = lead.first().is_some_and(|w| w.is(ARRANGEMENTS));
    let metric = head(subject).is_some_and(|w| w.is(METRICS))
        && !arranged
        && object
            .iter()
            .any(|w| w.key.contains(|c: char| c.is_ascii_digit()));
    if estimate || took || usage || !setting && (reading || metric) {
        return false;
    }
    if !linking {
        return true;
    }
    // "is at 95% capacity", "is at 3 pm"; "The nightly backup is at 02:00" is a schedule.
    let level =
        !recurs && lead.first().is_some_and(|w| w.key == "at") && amount(&lead[1..]).is_some();
    let limited = object.first().is_some_and(|w| w.is(LIMITING));
    let event = !recurs && object.iter().any(|w| !w.is_code() && clock(&w.key));
    let person = head(lead).is_some_and(|w| w.is(PEOPLE) || w.is(USERS))
        || WHEREABOUTS
            .iter()
            .any(|p| has_phrase(&lead[..lead.len().min(p.split(' ').count())], p));
    !(level || limited || event || person)
}

// One sentence --------------------------------------------------------------------------------

/// A word of the sentence: its text as written, and a lower-case key for the word lists without
/// the punctuation around it. A backtick span is one word, so a name with spaces or symbols in
/// it stays whole and is never mistaken for a listed word.
struct Word<'a> {
    text: &'a str,
    key: String,
}

impl Word<'_> {
    fn is(&self, list: &str) -> bool {
        !self.is_code() && has(list, &self.key)
    }

    fn is_code(&self) -> bool {
        self.text.starts_with('`')
    }
}

/// The words of a sentence, or `None` when a backtick is left open: the sentence was cut
/// inside code.
fn words(s: &str) -> Option<Vec<Word<'_>>> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let len = if let Some(code) = rest.strip_prefix('`') {
            let close = code.find('`')? + 2;
            close
                + rest[close..]
                    .find(char::is_whitespace)
                    .unwrap_or(rest.len() - close)
        } else {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        };
        let text = &rest[..len];
        let key = text
            .trim_matches(|c: char| matches!(c, ',' | ':' | '.'))
            .replace('\u{2019}', "'")
            .to_lowercase();
        out.push(Word { text, key });
        rest = rest[len..].trim_start();
    }
    Some(out)
}

fn phrase_key(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.key.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn strip_article<'w, 'a>(words: &'w [Word<'a>]) -> &'w [Word<'a>] {
    match words.split_first() {
        Some((first, rest)) if first.is("the a an") => rest,
        _ => words,
    }
}

/// Words as written, without backticks or the comma before a following clause.
fn render(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text)
        .collect::<Vec<_>>()
        .join(" ")
        .replace('`', "")
        .trim_end_matches(',')
        .to_string()
}

/// The facts of one sentence: none, or one per clause.
fn facts(sentence: &str) -> Vec<Candidate> {
    if sentence.ends_with('!') || sentence.contains(['?', '"', '\u{201c}', '\u{201d}']) {
        return Vec::new();
    }
    let s = sentence
        .strip_suffix(['.', ';'])
        .unwrap_or(sentence)
        .trim_end();
    if s.ends_with(['.', ',', ':', ';']) {
        return Vec::new();
    }
    let (s, valid_from) = dated(s);
    let Some(words) = words(strip_soft_opening(s)) else {
        return Vec::new();
    };
    if !(3..=30).contains(&words.len()) || !shape_ok(&words) {
        return Vec::new();
    }
    // All clauses or none: a clause that is dropped may be what qualifies the other one.
    clauses(&words)
        .and_then(|clauses| {
            clauses
                .into_iter()
                .map(|c| clause_fact(c, valid_from))
                .collect()
        })
        .unwrap_or_default()
}

/// The clauses of a sentence. Statements joined by "and", each with its own subject and verb,
/// are read one by one ("The API uses Axum and the worker uses Tokio"). A second verb sharing
/// the subject ("reads from SQS and writes results to S3") gives `None`: each half leaves out
/// what the other says, and together they are two facts in one.
fn clauses<'w, 'a>(words: &'w [Word<'a>]) -> Option<Vec<&'w [Word<'a>]>> {
    let mut out = Vec::new();
    let mut rest = words;
    while let Some(found) = find_verb(rest) {
        let mut split = None;
        for at in found.at + found.len..rest.len() {
            let after = &rest[at + 1..];
            if after.is_empty() {
                break;
            }
            // "runs on Linux, the client supports Windows": a comma is no "and".
            let splice = rest[at].text.ends_with(',') && !after[0].is("and or");
            if splice && find_verb(after).is_some() {
                return None;
            }
            if !rest[at].is("and") {
                continue;
            }
            // "stores inserts and writes" ends on a noun; "and writes results to S3" goes on,
            // and so does a second participle: "are retried with backoff and dropped after five
            // tries".
            let verb = after[0].is(FINITE) || listed(after, 0).is_some() || unlisted_verb(after);
            let participle = rest[found.at].is("is are") && perfect(after);
            if after.len() > 1 && verb || participle {
                return None;
            }
            if find_verb(after).is_some() {
                split = Some(at);
                break;
            }
        }
        let Some(at) = split else {
            break;
        };
        out.push(&rest[..at]);
        rest = &rest[at + 1..];
    }
    out.push(rest);
    Some(out)
}

/// A verb off the list that goes on with its object: "publishes to three subjects", "retries
/// the job". A lower-case word in -s before a determiner or preposition is read as one.
fn unlisted_verb(words: &[Word]) -> bool {
    let [first, next, ..] = words else {
        return false;
    };
    let key = first.key.as_str();
    let third_person = first.text.starts_with(char::is_lowercase)
        && key.len() > 3
        && key.ends_with('s')
        && !key.ends_with("ss")
        && !key.ends_with("us")
        && !key.ends_with("is");
    third_person && !first.is_code() && (next.is(NOUN_MARKERS) || amount(&words[1..]).is_some())
}

fn clause_fact(words: &[Word], valid_from: Option<i64>) -> Option<Candidate> {
    let found = find_verb(words)?;
    let first = &words[0];
    // "Make sure the worker uses ..." orders; "Commit messages must ..." is a noun phrase.
    if first.is(BASE_VERBS) && (found.at > 2 || words[1].is(NOUN_MARKERS)) {
        return None;
    }
    let end = found.at + found.len;
    let mut subject = &words[..found.at];
    while let Some((last, rest)) = subject.split_last()
        && last.is(SOFT_ADVERBS)
    {
        subject = rest;
    }
    // "The importer only reads CSV files": the fact would drop the "only".
    if subject.last().is_some_and(|w| w.is(LIMITING)) {
        return None;
    }
    let object = &words[end..];
    // "Payment gateway require ...": a form that is only ever a verb stays one after a singular
    // subject; "Test run", "Build cache" are nouns.
    let verb_only = words[found.at].is(VERB_ONLY);
    if found.plural && !verb_only && !plural_subject(subject) {
        return None;
    }
    if found.plural && !words[found.at].is(PLURAL_PREDICATES) {
        return None;
    }
    let predicate = phrase_key(&words[found.at..end]);
    if definition(subject, &predicate, object) {
        return None;
    }
    let subject = strip_article(subject);
    if !verb_follow_ok(&predicate, object)
        || !subject_ok(subject)
        || !object_ok(&predicate, object)
        || !standing(&predicate, subject, object)
    {
        return None;
    }
    Some(Candidate {
        subject: render(subject),
        predicate,
        object: render(object),
        valid_from,
        confidence: if valid_from.is_some() {
            DATED_CONFIDENCE
        } else {
            UNDATED_CONFIDENCE
        },
    })
}

/// Whether the sentence defines a bare name by its kind: "Rust is a systems programming
/// language", "Kafka is a distributed log". That is what anyone knows of the name, not how this
/// project is built; a part of the project takes an article ("The cache is a per-process LRU")
/// or is given as what it is ("Database is Postgres 16").
fn definition(subject: &[Word], predicate: &str, object: &[Word]) -> bool {
    let bare_name =
        matches!(subject, [name] if !name.is_code() && name.text.starts_with(char::is_uppercase));
    bare_name && matches!(predicate, "is" | "are") && object.first().is_some_and(|w| w.is("a an"))
}

fn strip_soft_opening(s: &str) -> &str {
    SOFT_OPENINGS
        .iter()
        .find_map(|opening| {
            let head = s.get(..opening.len())?;
            let rest = s[opening.len()..].strip_prefix(' ')?;
            head.eq_ignore_ascii_case(opening).then_some(rest)
        })
        .unwrap_or(s)
}

#[cfg(test)]
mod tests;
