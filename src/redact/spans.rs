//! Collects every rule's matches, merges the overlaps, and rebuilds the text once.
//!
//! Rules do not rewrite the text one after another: each finds its spans in the same text, and
//! where spans overlap (a GitHub token that is also a URL's password) they merge into one
//! replacement named by the earliest rule, so the specific shape wins over the generic one. The
//! same spans explain a redaction (`aletheia redact --explain`).

use super::Redactor;
use super::checks::{self, Matched};
use super::keywords;
use super::normalise;
use super::rules::{Check, RULES, Rule};
use regex_automata::meta::Regex;
use regex_automata::{Input, PatternID};

/// Which rule matched: built-in rules first, then the user's, each in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum RuleRef {
    Builtin(usize),
    User(usize),
}

/// One rule's match: the bytes `start..end` of the searched text are a secret.
#[derive(Debug)]
pub(super) struct Span {
    start: usize,
    end: usize,
    rule: RuleRef,
}

/// A replaced span of the original text, for `--explain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Byte offsets into the text.
    pub start: usize,
    pub end: usize,
    /// The rules that matched it, the one whose marker replaces it first.
    pub rules: Vec<String>,
    pub marker: String,
}

/// Every rule's spans in `text`, in its normalised view (invisible characters removed, escapes
/// decoded) mapped back to the bytes that produced them, and across line breaks that may have
/// wrapped a token: what the first pass replaces.
pub(super) fn find_all(r: &Redactor, text: &str) -> Vec<Span> {
    let mut out = rescan(r, text, &[(0, text.len())]);
    for (start, end) in normalise::wraps(text) {
        wrapped(r, text, start, end, &mut out);
    }
    out
}

/// What a later pass replaces: every rule's spans in the ranges the last pass changed, and in
/// the normalised view, where a marker that now ends one value can let the next one match (as
/// it does in the text itself), so that redacting the result again changes nothing.
pub(super) fn rescan(r: &Redactor, text: &str, ranges: &[(usize, usize)]) -> Vec<Span> {
    let mut out = find(r, text, ranges);
    if let Some(v) = normalise::view(text) {
        for s in find(r, &v.text, &v.lines) {
            let (start, end) = v.original(s.start, s.end);
            out.push(Span { start, end, ..s });
        }
    }
    out
}

/// The spans of provider shapes that cross the line break at `start..end` once it is removed.
/// Only shapes count: a name's value joined to the next line's first word would take that
/// word for part of it. And when a whole token already ends the line, only if the next line
/// starts with what reads as the rest of one (a run of 12 or more token characters with letters
/// and digits): otherwise joining would take the next line's first word, and the break, with it.
fn wrapped(r: &Redactor, text: &str, start: usize, end: usize, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let from = b[..start]
        .iter()
        .rposition(|c| c.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    let from = boundary(text, from.max(start.saturating_sub(300)));
    let to = b[end..]
        .iter()
        .position(|c| c.is_ascii_whitespace())
        .map_or(b.len(), |p| end + p);
    let to = widen(text, end, to.min(end + 300)).1;
    let joined = format!("{}{}", &text[from..start], &text[end..to]);
    let cut = start - from;
    let whole_before = find(r, &joined[..cut], &[(0, cut)]);
    let next = &joined[cut..];
    let run = next
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
        .count();
    let rest_of_a_token = run >= 12
        && next[..run].bytes().any(|c| c.is_ascii_digit())
        && next[..run].bytes().any(|c| c.is_ascii_alphabetic());
    for s in find(r, &joined, &[(0, joined.len())]) {
        let shape = matches!(s.rule, RuleRef::Builtin(i)
            if RULES[i].check == Check::None && RULES[i].marker.starts_with("[redacted:"));
        let cut_short = !whole_before
            .iter()
            .any(|w| w.rule == s.rule && w.start == s.start && w.end == cut);
        if shape && (cut_short || rest_of_a_token) && s.start < cut && s.end > cut {
            out.push(Span {
                start: from + s.start,
                end: end + (s.end - cut),
                rule: s.rule,
            });
        }
    }
}

/// Every rule's spans in `text`, looking only inside `ranges`.
pub(super) fn find(r: &Redactor, text: &str, ranges: &[(usize, usize)]) -> Vec<Span> {
    let mut out = Vec::new();
    for w in keywords::windows(text, ranges) {
        let rule = &RULES[w.rule];
        let how = How {
            entropy: rule.entropy,
            check: rule.check,
            group: None,
        };
        collect(
            Rule::regex(w.rule),
            text,
            (w.start, w.end),
            &how,
            RuleRef::Builtin(w.rule),
            &mut out,
        );
    }
    for &(from, to) in ranges.iter().filter(|_| !r.user_rules().is_empty()) {
        let lower = text[from..to].to_ascii_lowercase();
        for (i, rule) in r.user_rules().iter().enumerate() {
            if !rule.keywords.is_empty()
                && !rule.keywords.iter().any(|k| lower.contains(k.as_str()))
            {
                continue;
            }
            let Some(re) = rule.compiled() else { continue };
            let how = How {
                entropy: rule.entropy,
                check: Check::None,
                group: rule.secret_group,
            };
            collect(re, text, (from, to), &how, RuleRef::User(i), &mut out);
        }
    }
    out
}

/// How a rule judges its matches.
struct How {
    entropy: Option<f64>,
    check: Check,
    /// The numbered group that holds the secret (gitleaks' `secretGroup`); without one, the
    /// first group whose name starts with `secret` that took part, else the whole match.
    group: Option<usize>,
}

fn collect(
    re: &Regex,
    text: &str,
    (from, to): (usize, usize),
    how: &How,
    rule: RuleRef,
    out: &mut Vec<Span>,
) {
    let hay = &text[from..to];
    let bytes = hay.as_bytes();
    let named: Vec<usize> = re
        .group_info()
        .pattern_names(PatternID::ZERO)
        .enumerate()
        .filter_map(|(i, n)| n.filter(|n| n.starts_with("secret")).map(|_| i))
        .collect();
    let groups = how.group.is_some() || !named.is_empty();
    // A built-in line rule must find in a window of several lines what it finds in each line
    // alone (windows merge, and a second redaction sees other windows): a match that crosses a
    // line end is dropped and its first line searched by itself.
    let lines_apart = matches!(rule, RuleRef::Builtin(i) if !RULES[i].multiline);
    let mut caps = re.create_captures();
    let mut next = |limit: usize, at: usize| -> Option<Found> {
        // The input is the haystack up to `limit`, searched from `at`: what stands before `at`
        // still counts for `\b` and `^`.
        let input = Input::new(&bytes[..limit]).span(at..limit);
        if !groups {
            return re.search(&input).map(|m| Found {
                whole: m.range(),
                secret: None,
            });
        }
        re.search_captures(&input, &mut caps);
        let whole = caps.get_match()?.range();
        let secret = match how.group {
            Some(i) => caps.get_group(i),
            None => named.iter().find_map(|&i| caps.get_group(i)),
        };
        Some(Found {
            whole,
            secret: secret.map(|m| m.range()),
        })
    };
    let mut at = 0;
    while at <= hay.len() {
        let Some(found) = next(hay.len(), at) else {
            break;
        };
        if lines_apart && bytes[found.whole.clone()].contains(&b'\n') {
            let start = found.whole.start;
            let line_start = bytes[..start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            let line_end = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(hay.len(), |p| start + p);
            let mut pos = at.max(line_start);
            while pos <= line_end {
                let Some(found) = next(line_end, pos) else {
                    break;
                };
                pos = found.after();
                judge(hay, &found, how, rule, from, out);
            }
            at = line_end + 1;
            continue;
        }
        at = found.after();
        judge(hay, &found, how, rule, from, out);
    }
}

/// A rule's match: the whole of it and the secret group, when the rule has one.
struct Found {
    whole: std::ops::Range<usize>,
    secret: Option<std::ops::Range<usize>>,
}

impl Found {
    /// Where the next search starts: after the secret, so context the match used after it (the
    /// `;` that ends one `pwd=…;` and begins the next) can start another match; after a whole
    /// match; one byte on after an empty one.
    fn after(&self) -> usize {
        match &self.secret {
            Some(secret) if secret.end > self.whole.start => secret.end,
            _ => self.whole.end + usize::from(self.whole.is_empty()),
        }
    }
}

/// Push the span of `found` (offsets in `hay`, which starts at `from` of the text) when it
/// passes the rule's checks.
fn judge(hay: &str, found: &Found, how: &How, rule: RuleRef, from: usize, out: &mut Vec<Span>) {
    let secret = found.secret.clone().unwrap_or(found.whole.clone());
    let (start, mut end) = trim_escapes(hay, widen(hay, secret.start, secret.end));
    // A named value that no quote encloses runs to the next space; the syntax around it may
    // end it sooner.
    if let RuleRef::Builtin(_) = rule
        && found.secret.is_some()
        && matches!(how.check, Check::Password | Check::Credential)
        && !hay[..start].ends_with(['"', '\'', '`'])
    {
        end = start + unquoted_value_len(&hay[start..end]);
    }
    // A YAML plain scalar runs to the end of its line (`password: correct horse battery`); when
    // the whole line does not pass as a value, its first word still may.
    let scalar = yaml_scalar_end(hay, found, how, start, end);
    for end in scalar.into_iter().chain([end]) {
        if accepts(hay, found, how, rule, (start, end)) {
            out.push(Span {
                start: from + start,
                end: from + end,
                rule,
            });
            return;
        }
    }
}

/// Whether the value `start..end` of `found` passes its rule's judgement.
fn accepts(
    hay: &str,
    found: &Found,
    how: &How,
    rule: RuleRef,
    (start, end): (usize, usize),
) -> bool {
    let value = &hay[start..end];
    if value.is_empty() {
        return false;
    }
    let rest = &hay[end..];
    if let RuleRef::Builtin(_) = rule {
        // A value after a name may be a marker, a placeholder, a mask or a call (`getpass()`);
        // a whole-shape match is judged only for templates. The user's rules are gitleaks
        // rules and mean what they say.
        let named_value = found.secret.is_some();
        if named_value && (checks::is_placeholder(value) || rest.starts_with('(')) {
            return false;
        }
        if !named_value && checks::is_template(value) {
            return false;
        }
    }
    if how
        .entropy
        .is_some_and(|min| super::shannon_entropy(value) < min)
    {
        return false;
    }
    let match_start = widen(hay, found.whole.start, start).0;
    let matched = Matched {
        prefix: line_tail(&hay[boundary(hay, match_start.saturating_sub(80))..match_start]),
        before: &hay[match_start..start],
        value,
        after: line_head(&rest[..boundary(rest, rest.len().min(16))]),
    };
    checks::passes(how.check, &matched)
}

/// Where a YAML plain scalar that starts at `start` ends, when the match is a line's
/// `name: value` and the rest of the line reads as more words of it: letters, digits, spaces and
/// the symbols of passwords, no brackets or quotes (code's `token: Option<Box<dyn Fn()>>`), up
/// to a ` #` comment.
fn yaml_scalar_end(hay: &str, found: &Found, how: &How, start: usize, end: usize) -> Option<usize> {
    // A byte-level match can start inside a character (see `Rule::regex`).
    let whole_start = boundary(hay, found.whole.start);
    let line_start = hay[..whole_start].rfind('\n').map_or(0, |p| p + 1);
    let indent = hay[line_start..whole_start].trim_start_matches([' ', '\t']);
    if how.check != Check::Password
        || found.secret.is_none()
        || !(indent.is_empty() || indent == "- ")
        || !hay[..start].ends_with(": ")
    {
        return None;
    }
    let line_end = hay[end..].find(['\n', '\r']).map_or(hay.len(), |p| end + p);
    let line = &hay[end..line_end];
    let line = line.find(" #").map_or(line, |p| &line[..p]).trim_end();
    let word = |c: char| c.is_ascii_alphanumeric() || " !@#$%^&*_+=.-?~/".contains(c);
    (line.starts_with(' ') && line.chars().all(word) && hay[start..end].chars().all(word))
        .then_some(end + line.len())
}

/// How much of an unquoted value is the value: less a statement's `;`, a list's `,` or a
/// signature's `:` at its end, closing brackets that open nowhere in it (`f(password=x)`,
/// `{token: x}`), and a next parameter (`pass=x&user=y`, `password=x,ssl=True`). Brackets, `&`
/// and `;` inside it are the secret's own (`Summer(2024)Prod`, `Tr0ub4dor&3x`).
fn unquoted_value_len(v: &str) -> usize {
    let b = v.as_bytes();
    let mut len = (1..b.len())
        .find(|&i| b"&,;".contains(&b[i]) && next_parameter(&b[i + 1..]))
        .unwrap_or(b.len());
    // Brackets in `b[..len]`, kept as `len` shrinks: counting afresh at each step would be
    // quadratic in a value that ends in a long run of closing brackets.
    let mut count = [0usize; 128];
    for &c in &b[..len] {
        if let Some(n) = count.get_mut(usize::from(c)) {
            *n += 1;
        }
    }
    while len > 0 {
        let last = b[len - 1];
        let open = match last {
            b';' | b',' => {
                len -= 1;
                continue;
            }
            // `pwd=None):` ends a signature; `module::` is a path.
            b':' if len < 2 || b[len - 2] != b':' => {
                len -= 1;
                continue;
            }
            b')' => b'(',
            b']' => b'[',
            b'}' => b'{',
            b'>' => b'<',
            _ => break,
        };
        if count[usize::from(open)] >= count[usize::from(last)] {
            break;
        }
        count[usize::from(last)] -= 1;
        len -= 1;
    }
    len
}

/// Whether `b` starts with a query parameter's name and `=`.
fn next_parameter(b: &[u8]) -> bool {
    let name = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || b"_.-".contains(c))
        .count();
    name > 0 && b[0].is_ascii_alphabetic() && b.get(name) == Some(&b'=')
}

/// The part of `s` before its first newline: what follows a match on its own line.
fn line_head(s: &str) -> &str {
    s.find('\n').map_or(s, |p| &s[..p])
}

/// The part of `s` after its last newline: what stands before a match on its own line.
fn line_tail(s: &str) -> &str {
    s.rfind('\n').map_or(s, |p| &s[p + 1..])
}

/// A match less the `\n`, `\r` or `\t` escape that stood for its word boundary (see
/// `after_escapes` in `build/redaction_rules.rs`), and less those that end it.
fn trim_escapes(s: &str, (mut start, mut end): (usize, usize)) -> (usize, usize) {
    let escapes = ["\\n", "\\r", "\\t"];
    while end - start > 2 && escapes.iter().any(|e| s[start..end].starts_with(e)) {
        start += 2;
    }
    // A quoted value runs to its closing quote, escapes and all; a line end it closes with is
    // layout (`"-----END PRIVATE KEY-----\n"`).
    while end - start > 2
        && escapes.iter().any(|e| s[start..end].ends_with(e))
        && !s[..end - 2].ends_with('\\')
    {
        end -= 2;
    }
    (start, end)
}

/// `start..end` widened to character boundaries: rules match bytes, and a match that ends
/// inside a character (a length limit reached) must still replace the whole character.
fn widen(s: &str, start: usize, mut end: usize) -> (usize, usize) {
    while !s.is_char_boundary(end) {
        end += 1;
    }
    (boundary(s, start), end)
}

/// Overlapping spans merged, in text order, each with the rules that matched it (sorted, so
/// the first names the replacement).
fn merge(spans: &[Span]) -> Vec<(usize, usize, Vec<RuleRef>)> {
    let mut sorted: Vec<&Span> = spans.iter().collect();
    sorted.sort_by_key(|s| (s.start, s.rule));
    let mut out: Vec<(usize, usize, Vec<RuleRef>)> = Vec::new();
    for s in sorted {
        match out.last_mut() {
            Some((_, end, rules)) if s.start < *end => {
                *end = (*end).max(s.end);
                if !rules.contains(&s.rule) {
                    rules.push(s.rule);
                }
            }
            _ => out.push((s.start, s.end, vec![s.rule])),
        }
    }
    for (_, _, rules) in &mut out {
        rules.sort();
    }
    out
}

fn marker(r: &Redactor, rule: RuleRef) -> &str {
    match rule {
        RuleRef::Builtin(i) => RULES[i].marker,
        RuleRef::User(i) => &r.user_rules()[i].marker,
    }
}

fn id(r: &Redactor, rule: RuleRef) -> String {
    match rule {
        RuleRef::Builtin(i) => RULES[i].id.to_owned(),
        RuleRef::User(i) => r.user_rules()[i].id.clone(),
    }
}

/// The text with every span replaced, and the lines holding the replacements, which the next
/// pass searches again (a marker can complete a shape that a rule matches).
pub(super) fn apply(r: &Redactor, text: &str, spans: &[Span]) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut placed = Vec::new();
    let mut last = 0;
    for (start, end, rules) in merge(spans) {
        out.push_str(&text[last..start]);
        let at = out.len();
        out.push_str(marker(r, rules[0]));
        placed.push((at, out.len()));
        last = end;
    }
    out.push_str(&text[last..]);
    let mut dirty: Vec<(usize, usize)> = Vec::new();
    for (a, b) in placed {
        // Markers come in order, so one on a line already covered costs nothing.
        if let Some((_, end)) = dirty.last_mut()
            && a <= *end
        {
            if b > *end {
                *end = out[b..].find('\n').map_or(out.len(), |p| b + p);
            }
            continue;
        }
        let lo = out[..a].rfind('\n').map_or(0, |p| p + 1);
        let hi = out[b..].find('\n').map_or(out.len(), |p| b + p);
        dirty.push((lo, hi));
    }
    (out, dirty)
}

/// The nearest char boundary at or before `i`.
fn boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The merged spans as findings, with rule ids.
pub(super) fn findings(r: &Redactor, spans: &[Span]) -> Vec<Finding> {
    merge(spans)
        .into_iter()
        .map(|(start, end, rules)| Finding {
            start,
            end,
            marker: marker(r, rules[0]).to_owned(),
            rules: rules.into_iter().map(|rule| id(r, rule)).collect(),
        })
        .collect()
}
