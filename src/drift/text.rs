//! File paths written in a memory's own words.
//!
//! Prose names files loosely, and a wrong guess costs more than a miss: each path found here is
//! checked on disk and may mark the memory stale. So a word counts as a path only when its shape
//! says so: a `/` and a file name with an extension, a known extensionless file name, or a bare
//! `name.ext` with an extension source trees use. URLs, host names, e-mail addresses, version
//! numbers, abbreviations and method calls (`res.json()`) do not count.
//!
//! A plain scan over the words rather than a regex: the rules below (what may follow a colon,
//! what a first folder that looks like a host name means) read more plainly as code, and the scan
//! costs microseconds per memory.

/// At most this many paths per text: a memory that lists more is a listing, not a claim about
/// particular files, and each path costs a file-system lookup.
const MAX_PATHS: usize = 20;

/// Longer words are not paths anyone wrote in prose (and are not worth scanning).
const MAX_WORD: usize = 1024;

/// Extensions that make a bare `name.ext` a file: the ones source trees use. Words like `e.g.`,
/// `example.com`, `Node.js` and `1.2.3` have other endings (or are listed in [`NOT_FILES`]).
const EXTENSIONS: &[&str] = &[
    "adoc",
    "astro",
    "bash",
    "bat",
    "bazel",
    "bzl",
    "c",
    "cc",
    "cfg",
    "cjs",
    "clj",
    "cljc",
    "cljs",
    "cmake",
    "cmd",
    "conf",
    "cpp",
    "cs",
    "css",
    "csv",
    "cts",
    "cxx",
    "dart",
    "diff",
    "edn",
    "elm",
    "erb",
    "erl",
    "ex",
    "exs",
    "fish",
    "go",
    "gql",
    "gradle",
    "graphql",
    "groovy",
    "h",
    "hcl",
    "hh",
    "hpp",
    "hrl",
    "hs",
    "htm",
    "html",
    "hxx",
    "ini",
    "ipynb",
    "java",
    "jl",
    "js",
    "json",
    "json5",
    "jsonc",
    "jsx",
    "kt",
    "kts",
    "less",
    "lock",
    "lua",
    "md",
    "mdx",
    "mjs",
    "mk",
    "mod",
    "mts",
    "nix",
    "patch",
    "php",
    "pl",
    "prisma",
    "properties",
    "proto",
    "ps1",
    "py",
    "pyi",
    "rb",
    "rs",
    "rst",
    "sass",
    "scala",
    "scss",
    "sh",
    "sol",
    "sql",
    "sum",
    "svelte",
    "svg",
    "swift",
    "tf",
    "tfvars",
    "thrift",
    "toml",
    "ts",
    "tsv",
    "tsx",
    "txt",
    "vue",
    "wasm",
    "xml",
    "xsd",
    "yaml",
    "yml",
    "zig",
    "zsh",
];

/// Bare words with a listed extension that name libraries, not files.
const NOT_FILES: &[&str] = &[
    "alpine.js",
    "angular.js",
    "backbone.js",
    "chart.js",
    "d3.js",
    "deno.js",
    "ember.js",
    "express.js",
    "nest.js",
    "next.js",
    "node.js",
    "nuxt.js",
    "react.js",
    "solid.js",
    "three.js",
    "vue.js",
];

/// Files that have no extension but need none to be recognised.
const NAMES: &[&str] = &[
    "CODEOWNERS",
    "Containerfile",
    "Dockerfile",
    "GNUmakefile",
    "Gemfile",
    "Jenkinsfile",
    "Justfile",
    "Makefile",
    "Procfile",
    "Rakefile",
    "Vagrantfile",
    "justfile",
    "makefile",
];

/// Dot files that are recognisable on their own, without a folder in front.
const DOT_FILES: &[&str] = &[
    ".babelrc",
    ".dockerignore",
    ".editorconfig",
    ".env",
    ".envrc",
    ".eslintrc",
    ".gitattributes",
    ".gitignore",
    ".gitmodules",
    ".npmrc",
    ".nvmrc",
    ".prettierrc",
];

/// A first folder ending in one of these is a host name: `github.com/o/r/a.rs` is a link
/// written without its scheme.
const TOP_LEVEL_DOMAINS: &[&str] = &[
    "ai", "app", "co", "com", "de", "dev", "edu", "fr", "gov", "info", "io", "jp", "me", "net",
    "org", "ru", "uk", "us", "xyz",
];

/// The file paths written in `text`, in the order first seen, each once, at most
/// [`MAX_PATHS`]. A `:40` (or `:40:7`, `:40-52`, `#L40`) location after a path is dropped, and so
/// is a leading `./`; otherwise each path is returned as written.
pub fn paths_in_text(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(|c| !is_separator(c)) {
        rest = &rest[start..];
        let end = rest.find(is_separator).unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        rest = after;
        // `res.json()` and `config.load()` are calls, whatever their ending.
        if after.starts_with('(') {
            continue;
        }
        if let Some(path) = as_path(word)
            && !found.iter().any(|seen| seen == path)
        {
            found.push(path.to_owned());
            if found.len() == MAX_PATHS {
                break;
            }
        }
    }
    found
}

/// What ends a word: spaces, and the quotes, brackets and marks prose and Markdown put around a
/// path (`` `a.rs` ``, `(a.rs)`, `**a.rs**`, `a.rs,b.rs`, `--config=a.toml`).
fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '`' | '\''
                | '"'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '<'
                | '>'
                | ','
                | ';'
                | '|'
                | '='
                | '*'
        )
}

/// The path a word spells, without its location suffix, or `None`.
fn as_path(word: &str) -> Option<&str> {
    if word.len() > MAX_WORD || word.contains("//") {
        return None;
    }
    // The full stop or colon that ends a sentence or a clause is not part of the name.
    let word = word.trim_end_matches(['.', ':', '!', '?']);
    let word = match word.split_once(':') {
        // `lib.rs:40`, `lib.rs:40:7`, `lib.rs:40-52`.
        Some((path, at))
            if at
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b':' || b == b'-') =>
        {
            path
        }
        // `std::fs`, `localhost:8080/a.js`, `host:path`, `C:/x`.
        Some(_) => return None,
        None => word,
    };
    let word = match word.split_once('#') {
        Some((path, anchor)) if anchor.starts_with('L') => path,
        Some(_) => return None,
        None => word,
    };
    let mut path = word;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    if path.starts_with('-')
        || !path
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
    {
        return None;
    }
    let (folders, name) = match path.rsplit_once('/') {
        Some((folders, name)) => (Some(folders), name),
        None => (None, path),
    };
    let named = match folders {
        Some(folders) => in_a_folder(folders, name),
        None => on_its_own(name),
    };
    named.then_some(path)
}

/// Whether `folders/name` is a path: every folder named, the first not a host name, and a file
/// name that looks like one.
fn in_a_folder(folders: &str, name: &str) -> bool {
    // An absolute path starts with an empty first part; no other part may be empty.
    let mut parts = folders.strip_prefix('/').unwrap_or(folders).split('/');
    if parts.clone().any(str::is_empty) && !folders.is_empty() {
        return false;
    }
    if !folders.starts_with('/')
        && let Some(first) = parts.next()
        && let Some((_, tld)) = first.rsplit_once('.')
        && !first.starts_with('.')
        && TOP_LEVEL_DOMAINS
            .iter()
            .any(|d| d.eq_ignore_ascii_case(tld))
    {
        return false;
    }
    if NAMES.contains(&name) {
        return true;
    }
    match extension(name) {
        Some(_) => true,
        // A dot file in a folder (`config/.env`) is plainly a file.
        None => name.len() > 1 && name.starts_with('.') && !name[1..].contains('.'),
    }
}

/// Whether a word without a `/` is a file name: a known name, or an extension from the list.
fn on_its_own(name: &str) -> bool {
    if NAMES.contains(&name) || DOT_FILES.contains(&name) {
        return true;
    }
    extension(name).is_some_and(|ext| EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)))
        && !NOT_FILES.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// The extension of a file name shaped `stem.ext`: a stem (a dot file's name counts), and an
/// extension of up to ten letters and digits that starts with a letter, so `1.2.3`, `12.5mm`
/// and `a.` have none.
fn extension(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    let stem_ok = !stem.is_empty() && !stem.ends_with('.') && stem != ".";
    let ext_ok = (1..=10).contains(&ext.len())
        && ext.starts_with(|c: char| c.is_ascii_alphabetic())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric());
    (stem_ok && ext_ok).then_some(ext)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rstest::rstest;

    #[rstest]
    #[case::relative("the bug is in src/checkout.rs line 40", "src/checkout.rs")]
    #[case::dot_slash("see ./web/app.tsx for the form", "web/app.tsx")]
    #[case::line_suffix("crates/core/src/lib.rs:40 panics", "crates/core/src/lib.rs")]
    #[case::line_and_column("at crates/core/src/lib.rs:40:7.", "crates/core/src/lib.rs")]
    #[case::line_range("read src/a.rs:40-52 first", "src/a.rs")]
    #[case::anchor("src/a.rs#L40 again", "src/a.rs")]
    #[case::backticks("bump `Cargo.toml` and retry", "Cargo.toml")]
    #[case::absolute("run /abs/path/file.py twice", "/abs/path/file.py")]
    #[case::end_of_sentence("The fix went into src/pay.rs.", "src/pay.rs")]
    #[case::end_of_clause("in src/pay.rs: the total overflows", "src/pay.rs")]
    #[case::question("did you edit web/app.tsx?", "web/app.tsx")]
    #[case::parenthesised("(see web/app.tsx)", "web/app.tsx")]
    #[case::markdown_link("[the form](web/app.tsx)", "web/app.tsx")]
    #[case::bold("**src/pay.rs** is hot", "src/pay.rs")]
    #[case::flag_value("--config=conf/dev.toml", "conf/dev.toml")]
    #[case::apostrophe("checkout.rs's tests", "checkout.rs")]
    #[case::unknown_extension_in_a_folder("docs/notes.weird", "docs/notes.weird")]
    #[case::dot_folder("edit .github/workflows/ci.yml", ".github/workflows/ci.yml")]
    #[case::dot_file_in_folder("keys go in config/.env", "config/.env")]
    #[case::bare_dot_file("add it to .gitignore.", ".gitignore")]
    #[case::makefile("the Makefile target", "Makefile")]
    #[case::dockerfile_in_folder("deploy/Dockerfile", "deploy/Dockerfile")]
    #[case::parent("../shared/util.py", "../shared/util.py")]
    #[case::unicode("docs/über.md", "docs/über.md")]
    #[case::uppercase_extension("README.MD", "README.MD")]
    fn finds_the_path(#[case] text: &str, #[case] path: &str) {
        assert_eq!(paths_in_text(text), [path], "{text}");
    }

    #[rstest]
    #[case::url("https://x.com/a.js")]
    #[case::url_in_parentheses("(https://x.com/a.js)")]
    #[case::schemeless_url("github.com/owner/repo/src/a.rs")]
    #[case::protocol_relative("//cdn.x.org/lib.js")]
    #[case::file_url("file:///home/u/a.rs")]
    #[case::host_and_port("localhost:8080/app.js")]
    #[case::version("1.2.3")]
    #[case::version_with_v("v1.2.3")]
    #[case::domain("example.com")]
    #[case::email("mail ann@example.com now")]
    #[case::email_with_source_ending("ann@pay.rs")]
    #[case::eg("e.g. this")]
    #[case::ie("i.e. that")]
    #[case::library("built with Node.js and Next.js")]
    #[case::call("call res.json() then")]
    #[case::method_chain("obj.items.len")]
    #[case::rust_path("std::fs::read")]
    #[case::folder("src/")]
    #[case::and_or("and/or TCP/IP")]
    #[case::measure("12.5mm and 3.5/4.0")]
    #[case::glob("src/*.rs")]
    #[case::double_slash("src//a.rs")]
    #[case::flag("-o.rs")]
    #[case::home("~/notes.md")]
    #[case::windows(r"C:\src\a.rs")]
    #[case::abbreviations("at 3 p.m. in the U.S.")]
    #[case::bare_unknown_extension("notes.weird")]
    fn ignores_what_is_not_a_path(#[case] text: &str) {
        assert_eq!(paths_in_text(text), Vec::<String>::new(), "{text}");
    }

    #[test]
    fn each_path_once_in_first_seen_order() {
        let text =
            "web/app.tsx then src/a.rs:3, then ./web/app.tsx and `src/a.rs` again, Cargo.toml";
        assert_eq!(
            paths_in_text(text),
            ["web/app.tsx", "src/a.rs", "Cargo.toml"]
        );
    }

    #[test]
    fn at_most_twenty_paths() {
        let text: String = (0..30).map(|i| format!("src/f{i}.rs ")).collect();
        let found = paths_in_text(&text);
        assert_eq!(found.len(), 20);
        assert_eq!(found[0], "src/f0.rs");
        assert_eq!(found[19], "src/f19.rs");
    }

    proptest! {
        #[test]
        fn every_path_found_is_written_in_the_text(text in "\\PC{0,200}") {
            let found = paths_in_text(&text);
            prop_assert!(found.len() <= MAX_PATHS);
            for path in &found {
                prop_assert!(text.contains(path.as_str()), "{path:?}");
                prop_assert!(!path.contains("://") && !path.contains('@'), "{path:?}");
                prop_assert!(!path.chars().any(char::is_whitespace), "{path:?}");
            }
        }

        #[test]
        fn a_folder_path_between_words_is_found(
            before in "[a-z ]{0,20}",
            folders in "[a-z_]{1,8}(/[a-z_]{1,8}){0,3}",
            stem in "[a-z][a-z0-9_]{0,8}",
            ext in prop::sample::select(EXTENSIONS),
            after in "[a-z ]{0,20}",
        ) {
            let path = format!("{folders}/{stem}.{ext}");
            let text = format!("{before} {path}, {after}");
            prop_assert_eq!(paths_in_text(&text), vec![path]);
        }
    }
}
