//! `aletheia model fetch`, run as the real binary against a real HTTP server on 127.0.0.1.
//!
//! The models' public home is out of reach for the test suite, so a small server thread here
//! serves the files, the way a mirror named by ALETHEIA_MODEL_URL would: each model in a folder
//! of its name. The tests that need the real weights (all-MiniLM-L6-v2's sha256 is pinned) read
//! them from ALETHEIA_TEST_MODEL_DIR, one subfolder per model.

#![cfg(feature = "semantic")]

use crate::support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use aletheia::embed::model::{Embedder, FILES};

/// The models a default fetch gets: the sentence model and the re-ranker.
const MODELS: [&str; 2] = ["e5-small-v2", "ms-marco-MiniLM-L-12-v2"];
const DEFAULT: &str = MODELS[0];
use support::Env;

const NEEDS_MODEL: &str =
    "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR";

/// Serves a fixed set of files by name over HTTP/1.1 (404 for anything else) and counts the
/// requests for each name, so a test can tell what was downloaded.
struct Server {
    url: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl Server {
    fn start(files: Vec<(&str, Vec<u8>)>) -> Server {
        let files: HashMap<String, Vec<u8>> = files
            .into_iter()
            .map(|(name, body)| (name.to_string(), body))
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let hits = Arc::new(Mutex::new(HashMap::new()));
        let counter = Arc::clone(&hits);
        // Never joined: the thread ends with the test process.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let mut reader = BufReader::new(&stream);
                let mut request = String::new();
                let _ = reader.read_line(&mut request);
                let mut header = String::new();
                while reader.read_line(&mut header).unwrap_or(0) > 0 && header != "\r\n" {
                    header.clear();
                }
                let name = request.split(' ').nth(1).unwrap_or("/");
                let name = name.trim_start_matches('/').to_string();
                *counter.lock().unwrap().entry(name.clone()).or_default() += 1;
                let (status, body) = match files.get(&name) {
                    Some(body) => ("200 OK", body.as_slice()),
                    None => ("404 Not Found", &b"not found"[..]),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = (&stream).write_all(head.as_bytes());
                let _ = (&stream).write_all(body);
            }
        });
        Server { url, hits }
    }

    /// Serves the real model files, each model in a folder of its name.
    fn real() -> Server {
        let dir = real_model_dir();
        let mut files = Vec::new();
        for model in MODELS {
            for file in FILES {
                let name: &'static str = Box::leak(format!("{model}/{file}").into_boxed_str());
                files.push((name, std::fs::read(dir.join(model).join(file)).unwrap()));
            }
        }
        Server::start(files)
    }

    fn hits(&self, name: &str) -> usize {
        self.hits.lock().unwrap().get(name).copied().unwrap_or(0)
    }

    fn total_hits(&self) -> usize {
        self.hits.lock().unwrap().values().sum()
    }
}

fn real_model_dir() -> PathBuf {
    std::env::var_os("ALETHEIA_TEST_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("ALETHEIA_TEST_MODEL_DIR is not set ({NEEDS_MODEL})"))
}

/// `aletheia model fetch [--dir DIR]` against `url`; returns (exit code, stdout, stderr).
fn fetch(env: &Env, url: &str, dir: Option<&Path>) -> (Option<i32>, String, String) {
    fetch_model(env, url, dir, "")
}

/// [`fetch`] of sentence model `model` (the default when empty).
fn fetch_model(
    env: &Env,
    url: &str,
    dir: Option<&Path>,
    model: &str,
) -> (Option<i32>, String, String) {
    let mut cmd = env.cmd();
    cmd.args(["model", "fetch"])
        .env("ALETHEIA_MODEL_URL", url)
        .env("ALETHEIA_MODEL", model);
    if let Some(dir) = dir {
        cmd.arg("--dir").arg(dir);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A failure is one line of the form `aletheia: ...`.
fn assert_one_line_error(stderr: &str) {
    assert!(stderr.starts_with("aletheia: "), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
#[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
fn fetches_the_model_into_an_empty_folder_then_downloads_nothing() {
    let env = Env::new();
    let server = Server::real();
    let dir = env.dir.path().join("models");

    let (code, stdout, stderr) = fetch(&env, &server.url, Some(&dir));
    assert_eq!(code, Some(0), "{stderr}");
    let mut expected: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    expected.sort();
    assert_eq!(listing(&dir), MODELS.to_vec(), "a folder per model");
    for model in MODELS {
        assert_eq!(
            listing(&dir.join(model)),
            expected,
            "no leftover temporary files"
        );
        for file in FILES {
            assert!(
                std::fs::read(dir.join(model).join(file)).unwrap()
                    == std::fs::read(real_model_dir().join(model).join(file)).unwrap(),
                "{model}/{file} differs from the served copy"
            );
            assert!(
                stdout.contains(&format!("{model}: downloaded {file}")),
                "{stdout}"
            );
            assert_eq!(server.hits(&format!("{model}/{file}")), 1, "{model}/{file}");
        }
    }
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.contains(&dir.display().to_string()), "{stdout}");
    Embedder::load(&dir).expect("the fetched model loads");

    let (code, _, stderr) = fetch(&env, &server.url, Some(&dir));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        server.total_hits(),
        MODELS.len() * FILES.len(),
        "the second fetch downloaded something"
    );
}

#[test]
#[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
fn a_folder_that_already_holds_the_model_is_left_alone() {
    let env = Env::new();
    let server = Server::real();
    let dir = env.data().join("model");
    for model in MODELS {
        std::fs::create_dir_all(dir.join(model)).unwrap();
        for file in FILES {
            std::fs::copy(
                real_model_dir().join(model).join(file),
                dir.join(model).join(file),
            )
            .unwrap();
        }
    }

    let (code, stdout, stderr) = fetch(&env, &server.url, None);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(server.total_hits(), 0);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.contains(&dir.display().to_string()), "{stdout}");
}

#[test]
fn wrong_weights_fail_the_checksum_and_leave_nothing_behind() {
    let env = Env::new();
    let server = Server::start(vec![
        (
            "all-MiniLM-L6-v2/model.safetensors",
            b"not a model".to_vec(),
        ),
        ("all-MiniLM-L6-v2/tokenizer.json", b"{}".to_vec()),
        ("all-MiniLM-L6-v2/config.json", b"{}".to_vec()),
    ]);
    let models = env.dir.path().join("model");
    let dir = models.join("all-MiniLM-L6-v2");

    let (code, _, stderr) = fetch_model(&env, &server.url, Some(&models), "all-MiniLM-L6-v2");
    assert_eq!(code, Some(1), "{stderr}");
    assert_one_line_error(&stderr);
    assert!(stderr.contains("sha256"), "{stderr}");
    assert!(stderr.contains("model.safetensors"), "{stderr}");
    assert!(!dir.join("model.safetensors").exists());
    // The JSON files may have been fetched (they are valid); nothing else may be there.
    let leftovers: Vec<String> = listing(&dir)
        .into_iter()
        .filter(|name| name != "tokenizer.json" && name != "config.json")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_404_names_the_url() {
    let env = Env::new();
    let server = Server::start(Vec::new());
    let dir = env.dir.path().join("model");

    let (code, _, stderr) = fetch(&env, &server.url, Some(&dir));
    assert_eq!(code, Some(1), "{stderr}");
    assert_one_line_error(&stderr);
    assert!(
        stderr.contains(&format!("{}{DEFAULT}/model.safetensors", server.url)),
        "{stderr}"
    );
    assert!(stderr.contains("404"), "{stderr}");
}

#[test]
fn nothing_listening_is_a_one_line_error() {
    let env = Env::new();
    // A port that was free a moment ago and has nothing listening now.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/");
    let dir = env.dir.path().join("model");

    let (code, _, stderr) = fetch(&env, &url, Some(&dir));
    assert_eq!(code, Some(1), "{stderr}");
    assert_one_line_error(&stderr);
    assert!(stderr.contains(&url), "{stderr}");
}

/// Which folder a fetch uses shows even when it fails: the folder is created first.
#[test]
fn the_folder_is_dir_then_aletheia_model_dir_then_the_data_dir() {
    let server = Server::start(Vec::new());

    let env = Env::new();
    let (code, _, _) = fetch(&env, &server.url, None);
    assert_eq!(code, Some(1));
    assert!(env.data().join("model").is_dir());

    let env = Env::new();
    let chosen = env.dir.path().join("chosen");
    let out = env
        .cmd()
        .args(["model", "fetch"])
        .env("ALETHEIA_MODEL_URL", &server.url)
        .env("ALETHEIA_MODEL_DIR", &chosen)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(chosen.is_dir());
    assert!(!env.data().join("model").exists());

    let env = Env::new();
    let flag = env.dir.path().join("flag");
    let out = env
        .cmd()
        .args(["model", "fetch", "--dir"])
        .arg(&flag)
        .env("ALETHEIA_MODEL_URL", &server.url)
        .env("ALETHEIA_MODEL_DIR", env.dir.path().join("unused"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(flag.is_dir());
    assert!(!env.dir.path().join("unused").exists());
}

/// `ALETHEIA_MODEL` picks the sentence model fetched, into a folder of its name; with the
/// re-ranker off, nothing else is asked for. A name no model has is one line saying the names.
#[test]
fn the_chosen_model_alone_is_fetched_into_its_own_folder() {
    let header = br#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let mut weights = (header.len() as u64).to_le_bytes().to_vec();
    weights.extend_from_slice(header);
    weights.extend_from_slice(&1f32.to_le_bytes());
    let server = Server::start(vec![
        ("e5-small-v2/model.safetensors", weights),
        ("e5-small-v2/tokenizer.json", b"{}".to_vec()),
        ("e5-small-v2/config.json", b"{}".to_vec()),
    ]);
    let env = Env::new();
    let dir = env.dir.path().join("models");
    let out = env
        .cmd()
        .args(["model", "fetch", "--dir"])
        .arg(&dir)
        .env("ALETHEIA_MODEL_URL", &server.url)
        .env("ALETHEIA_MODEL", "e5-small-v2")
        .env("ALETHEIA_RERANKER", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(listing(&dir), ["e5-small-v2"]);
    assert_eq!(server.total_hits(), FILES.len());

    let out = env
        .cmd()
        .args(["model", "fetch", "--dir"])
        .arg(&dir)
        .env("ALETHEIA_MODEL_URL", &server.url)
        .env("ALETHEIA_MODEL", "gpt-9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_one_line_error(&stderr);
    assert!(stderr.contains("ALETHEIA_MODEL=gpt-9"), "{stderr}");
    assert!(stderr.contains("e5-small-v2"), "{stderr}");
    assert_eq!(server.total_hits(), FILES.len(), "nothing was asked for");
}
