//! Downloading a model into a folder: what `aletheia model fetch` runs.
//!
//! Semantic recall needs its models on disk (see [`super::catalog`]), and at 90 to 130 MB each
//! they are too large to build into the binary, so a user fetches them once from their public
//! home on Hugging Face. A mirror, or a test server, can stand in by passing another base URL.
//!
//! What keeps the folder trustworthy:
//!
//! - Weights whose sha256 the catalogue pins are checked against it, so what gets loaded is
//!   exactly the model whose vectors the tests check, whatever the URL serves. Weights without a
//!   pin must at least be a whole safetensors file (its header parses), and a copy that does not
//!   fit the model fails loudly when it is loaded. The tokenizer and configuration are only
//!   required to parse as JSON: upstream may reformat them or add fields without changing the
//!   model.
//! - Each file is written under a temporary name in the same folder, checked, flushed to disk,
//!   then renamed into place, so an interrupted fetch never leaves a half file under its final
//!   name for a later load to trip over, and a file that fails its check is never renamed.
//! - A file already present and valid is kept, so fetching again downloads nothing.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sha2::{Digest, Sha256};

use super::catalog::Spec;
use super::model::FILES;

const WEIGHTS: &str = "model.safetensors";

/// The largest safetensors header believed: the real ones are tens of kilobytes.
const MAX_HEADER: u64 = 16 << 20;

/// A host that has not answered in this long is unreachable rather than slow.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection that delivers nothing for this long has stalled; slow but moving links are fine.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Backstop for one file, redirects and body included: 90 MB in an hour is 25 kB/s, slower
/// than any link a user would wait on.
const FILE_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Why the model could not be fetched. Every message is one line that says what to do.
///
/// Causes are kept as text inside the message rather than as error sources, so that printing
/// the error with its chain does not repeat them.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The base URL is not one this client can fetch from.
    #[error("the model URL {0} is not an http:// or https:// URL; fix or unset ALETHEIA_MODEL_URL")]
    BadUrl(String),
    /// The server could not be reached, or the connection broke during the download.
    #[error(
        "cannot download {url}: {cause}; check the network, set ALETHEIA_MODEL_URL to a mirror, \
         or copy {} from {model} by hand into {}",
        FILES.join(", "),
        dir.display()
    )]
    Network {
        model: &'static str,
        url: String,
        cause: String,
        dir: PathBuf,
    },
    /// The server answered, but not with the file.
    #[error(
        "{url} answered HTTP {status}; set ALETHEIA_MODEL_URL to a mirror that serves the model's \
         files, or copy {} from {model} by hand into {}",
        FILES.join(", "),
        dir.display()
    )]
    Status {
        model: &'static str,
        url: String,
        status: u16,
        dir: PathBuf,
    },
    /// The weights downloaded are not the pinned model.
    #[error(
        "{file} from {url} has sha256 {got}, expected {expected}; the download was removed: set \
         ALETHEIA_MODEL_URL to a source that serves {model} unchanged"
    )]
    Checksum {
        model: &'static str,
        file: &'static str,
        url: String,
        expected: &'static str,
        got: String,
    },
    /// A JSON file downloaded does not parse.
    #[error(
        "{file} from {url} is not valid JSON ({cause}); the download was removed: set \
         ALETHEIA_MODEL_URL to a source that serves {model}"
    )]
    NotJson {
        model: &'static str,
        file: &'static str,
        url: String,
        cause: String,
    },
    /// Weights downloaded without a pinned hash are not a safetensors file.
    #[error(
        "{file} from {url} is not a safetensors file; the download was removed: set \
         ALETHEIA_MODEL_URL to a source that serves {model}"
    )]
    NotSafetensors {
        model: &'static str,
        file: &'static str,
        url: String,
    },
    /// The model folder or a file in it could not be created, read or written.
    #[error(
        "cannot use {}: {error}; make the folder writable or choose another with --dir or \
         ALETHEIA_MODEL_DIR",
        path.display()
    )]
    Io { path: PathBuf, error: io::Error },
}

/// What a fetch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The model folder.
    pub dir: PathBuf,
    /// Files downloaded by this fetch, in the order of [`FILES`].
    pub downloaded: Vec<&'static str>,
    /// Files that were already there and valid, left untouched.
    pub already_present: Vec<&'static str>,
    /// Bytes downloaded by this fetch.
    pub bytes: u64,
}

/// Make `dir` hold model `spec`'s [`FILES`], downloading from `base_url` (a file's name is
/// appended; normally the model's home) those that are missing or invalid.
///
/// `progress`: show a progress bar on stderr while downloading (the CLI passes whether stderr is
/// a terminal).
pub fn fetch(
    dir: &Path,
    spec: &'static Spec,
    base_url: &str,
    progress: bool,
) -> Result<Fetched, FetchError> {
    fetch_checked(
        dir,
        spec.name,
        base_url,
        progress,
        &FILES.map(|file| (file, check_for(spec, file))),
    )
}

/// How a file is known to be the right one.
#[derive(Debug, Clone, Copy)]
enum Check {
    Sha256(&'static str),
    Safetensors,
    Json,
}

fn check_for(spec: &Spec, file: &str) -> Check {
    match (file == WEIGHTS, spec.weights_sha256) {
        (true, Some(hash)) => Check::Sha256(hash),
        (true, None) => Check::Safetensors,
        (false, _) => Check::Json,
    }
}

/// [`fetch`] with the checks as a parameter, so the tests can pin small files of their own.
fn fetch_checked(
    dir: &Path,
    model: &'static str,
    base_url: &str,
    progress: bool,
    files: &[(&'static str, Check)],
) -> Result<Fetched, FetchError> {
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(FetchError::BadUrl(base_url.to_string()));
    }
    fs::create_dir_all(dir).map_err(io_at(dir))?;
    remove_stale_parts(dir, files);
    let agent = agent();
    let mut fetched = Fetched {
        dir: dir.to_path_buf(),
        downloaded: Vec::new(),
        already_present: Vec::new(),
        bytes: 0,
    };
    for &(file, check) in files {
        if is_valid(&dir.join(file), check)? {
            fetched.already_present.push(file);
            continue;
        }
        let url = url_of(base_url, file);
        fetched.bytes += download(&agent, dir, model, file, &url, check, progress)?;
        fetched.downloaded.push(file);
    }
    Ok(fetched)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_per_read(Some(READ_TIMEOUT))
        .timeout_global(Some(FILE_TIMEOUT))
        // A 404 or 500 is reported with its URL by us, not as ureq's bare "http status".
        .http_status_as_error(false)
        .user_agent(concat!("aletheia/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// Mirrors are often given without the trailing slash.
fn url_of(base_url: &str, file: &str) -> String {
    if base_url.ends_with('/') {
        format!("{base_url}{file}")
    } else {
        format!("{base_url}/{file}")
    }
}

/// Whether `path` holds a file that passes `check`. A present file that fails is not an error:
/// it is downloaded again and replaced.
fn is_valid(path: &Path, check: Check) -> Result<bool, FetchError> {
    let file = match File::open(path) {
        Ok(file) if path.is_file() => file,
        Ok(_) => return Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io_at(path)(e)),
    };
    match check {
        Check::Sha256(expected) => {
            let mut hasher = Sha256::new();
            io::copy(&mut BufReader::new(file), &mut HashWriter(&mut hasher))
                .map_err(io_at(path))?;
            Ok(hex(&hasher.finalize()) == expected)
        }
        Check::Safetensors => Ok(is_safetensors(file)),
        Check::Json => Ok(json_error(file).is_none()),
    }
}

/// Whether `file` starts as a safetensors file does: the header's length in 8 bytes, little
/// endian, then that many bytes of a JSON object, all within the file.
fn is_safetensors(mut file: File) -> bool {
    let mut length = [0u8; 8];
    if file.read_exact(&mut length).is_err() {
        return false;
    }
    let length = u64::from_le_bytes(length);
    let size = file.metadata().map_or(0, |m| m.len());
    if length == 0 || length > MAX_HEADER || length + 8 > size {
        return false;
    }
    let mut header = vec![0u8; usize::try_from(length).unwrap_or(0)];
    file.read_exact(&mut header).is_ok()
        && serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&header).is_ok()
}

/// Download one file into `dir` through a temporary file; returns the bytes downloaded.
#[allow(
    clippy::too_many_arguments,
    reason = "each is one fact of the one download; a struct would only rename them"
)]
fn download(
    agent: &ureq::Agent,
    dir: &Path,
    model: &'static str,
    file: &'static str,
    url: &str,
    check: Check,
    progress: bool,
) -> Result<u64, FetchError> {
    let network = |cause: String| FetchError::Network {
        model,
        url: url.to_string(),
        cause,
        dir: dir.to_path_buf(),
    };
    let response = agent.get(url).call().map_err(|e| match e {
        // ureq prefixes these with "io: ", which tells the user nothing.
        ureq::Error::Io(e) => network(e.to_string()),
        e => network(e.to_string()),
    })?;
    if !response.status().is_success() {
        return Err(FetchError::Status {
            model,
            url: url.to_string(),
            status: response.status().as_u16(),
            dir: dir.to_path_buf(),
        });
    }
    let bar = progress_bar(file, response.body().content_length(), progress);
    let mut reader = response.into_body().into_reader();

    let mut part = Part::create(dir, file)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut bytes = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // ureq reports a dropped connection or a short body here, as an io::Error.
            Err(e) => return Err(network(e.to_string())),
        };
        hasher.update(&buf[..n]);
        part.write_all(&buf[..n])?;
        bytes += n as u64;
        bar.inc(n as u64);
    }
    bar.finish_and_clear();

    match check {
        Check::Sha256(expected) => {
            let got = hex(&hasher.finalize());
            if got != expected {
                return Err(FetchError::Checksum {
                    model,
                    file,
                    url: url.to_string(),
                    expected,
                    got,
                });
            }
        }
        Check::Safetensors => {
            let written = File::open(&part.path).map_err(io_at(&part.path))?;
            if !is_safetensors(written) {
                return Err(FetchError::NotSafetensors {
                    model,
                    file,
                    url: url.to_string(),
                });
            }
        }
        Check::Json => {
            let written = File::open(&part.path).map_err(io_at(&part.path))?;
            if let Some(cause) = json_error(written) {
                return Err(FetchError::NotJson {
                    model,
                    file,
                    url: url.to_string(),
                    cause,
                });
            }
        }
    }
    part.commit(&dir.join(file))?;
    Ok(bytes)
}

/// A bar with bytes and rate; hidden unless asked for, because a bar written to a log or a pipe
/// is only noise.
fn progress_bar(file: &str, length: Option<u64>, progress: bool) -> ProgressBar {
    if !progress {
        return ProgressBar::hidden();
    }
    // A compressed response has no usable length: show what has arrived rather than a bar.
    let template = match length {
        Some(_) => "{msg} [{wide_bar}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        None => "{msg} {bytes} {bytes_per_sec}",
    };
    let style = ProgressStyle::with_template(template)
        .expect("the templates are fixed and valid")
        .progress_chars("=> ");
    ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr())
        .with_style(style)
        .with_message(file.to_string())
}

/// A download in progress: `.<name>.<pid>.part` beside the final file.
///
/// Same folder, so the final rename stays on one file system and is atomic. The process id keeps
/// two concurrent fetches apart. The file is locked while written, so that
/// [`remove_stale_parts`] can tell the leftovers of a killed fetch from a live one. Dropped
/// without [`Part::commit`], it removes itself.
struct Part {
    path: PathBuf,
    file: Option<File>,
}

impl Part {
    fn create(dir: &Path, name: &str) -> Result<Part, FetchError> {
        let path = dir.join(format!(".{name}.{}.part", std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(io_at(&path))?;
        // Some file systems cannot lock; the part is then merely never cleaned up by others.
        let _ = file.try_lock();
        Ok(Part {
            path,
            file: Some(file),
        })
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), FetchError> {
        let file = self.file.as_mut().expect("open until committed");
        file.write_all(bytes).map_err(io_at(&self.path))
    }

    /// Flush to disk, then rename into place: after a crash the final name holds either the old
    /// file or the whole new one.
    fn commit(mut self, to: &Path) -> Result<(), FetchError> {
        let file = self.file.as_mut().expect("open until committed");
        file.sync_all().map_err(io_at(&self.path))?;
        fs::rename(&self.path, to).map_err(io_at(to))?;
        self.file = None;
        sync_dir(to.parent().unwrap_or(Path::new(".")));
        Ok(())
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        // `file` is `None` once committed: the path then names nothing of ours.
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Make a rename durable. Best effort: some file systems refuse to sync a folder, and the rename
/// itself has already happened.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// A part file untouched for this long is not a download that has just started and not yet
/// taken its lock.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Remove the part files of fetches that were killed (Ctrl-C on a 90 MB download), which would
/// otherwise pile up in the folder. Only files that can be locked, so no live fetch holds them,
/// and that have not been written lately are removed. Best effort: a leftover is only wasted
/// space.
fn remove_stale_parts(dir: &Path, files: &[(&'static str, Check)]) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = name.ends_with(".part")
            && files
                .iter()
                .any(|(file, _)| name.starts_with(&format!(".{file}.")));
        if !ours {
            continue;
        }
        let path = entry.path();
        let Ok(part) = OpenOptions::new().write(true).open(&path) else {
            continue;
        };
        let idle = part
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        if idle.is_some_and(|idle| idle >= STALE_AFTER) && part.try_lock().is_ok() {
            let _ = fs::remove_file(&path);
        }
    }
}

/// `None` when the file parses as JSON, else why not.
fn json_error(file: File) -> Option<String> {
    serde_json::from_reader::<_, serde::de::IgnoredAny>(BufReader::new(file))
        .err()
        .map(|e| e.to_string())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lets [`io::copy`] feed a hasher.
struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> FetchError + '_ {
    move |error| FetchError::Io {
        path: path.to_path_buf(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::catalog;
    use std::collections::HashMap;
    use std::io::BufRead;
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    /// A tiny HTTP/1.1 server on 127.0.0.1 serving `files` by name (404 for anything else) and
    /// counting requests per name.
    struct Server {
        base: String,
        hits: Arc<Mutex<HashMap<String, usize>>>,
    }

    impl Server {
        fn start(files: &[(&str, &[u8])]) -> Server {
            let files: HashMap<String, Vec<u8>> = files
                .iter()
                .map(|(name, body)| (name.to_string(), body.to_vec()))
                .collect();
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base = format!("http://{}/", listener.local_addr().unwrap());
            let hits = Arc::new(Mutex::new(HashMap::new()));
            let counter = Arc::clone(&hits);
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
            Server { base, hits }
        }

        fn hits(&self, name: &str) -> usize {
            self.hits.lock().unwrap().get(name).copied().unwrap_or(0)
        }
    }

    const WEIGHTS_BYTES: &[u8] = b"pretend weights";
    const TOKENIZER: &[u8] = br#"{"model": {"type": "WordPiece"}}"#;
    const CONFIG: &[u8] = br#"{"hidden_size": 384}"#;

    /// The real file names, with the weights pinned to [`WEIGHTS_BYTES`].
    fn checks() -> Vec<(&'static str, Check)> {
        let pinned = hex(&Sha256::digest(WEIGHTS_BYTES));
        let pinned: &'static str = Box::leak(pinned.into_boxed_str());
        FILES
            .iter()
            .map(|&file| match check_for(&catalog::MINILM, file) {
                Check::Sha256(_) => (file, Check::Sha256(pinned)),
                check => (file, check),
            })
            .collect()
    }

    fn good_server() -> Server {
        Server::start(&[
            (WEIGHTS, WEIGHTS_BYTES),
            ("tokenizer.json", TOKENIZER),
            ("config.json", CONFIG),
        ])
    }

    /// Everything in `dir` other than the model's files, such as leftover parts.
    fn others(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !FILES.contains(&name.as_str()))
            .collect()
    }

    #[test]
    fn every_file_has_a_meaningful_check() {
        for spec in catalog::SENTENCE_MODELS.iter().chain(&catalog::RERANKERS) {
            for file in FILES {
                match check_for(spec, file) {
                    Check::Sha256(hash) => {
                        assert_eq!(file, WEIGHTS);
                        assert_eq!(Some(hash), spec.weights_sha256);
                    }
                    Check::Safetensors => {
                        assert_eq!(file, WEIGHTS);
                        assert!(spec.weights_sha256.is_none());
                    }
                    Check::Json => assert!(file.ends_with(".json"), "{file} is checked as JSON"),
                }
            }
        }
        assert!(FILES.contains(&WEIGHTS));
    }

    #[test]
    fn url_of_adds_a_missing_slash() {
        assert_eq!(url_of("http://h/m/", "a.json"), "http://h/m/a.json");
        assert_eq!(url_of("http://h/m", "a.json"), "http://h/m/a.json");
        assert!(
            url_of(catalog::E5_SMALL.home, WEIGHTS).ends_with("/resolve/main/model.safetensors")
        );
    }

    /// A safetensors file of one tensor, as the format lays it out.
    fn safetensors_bytes() -> Vec<u8> {
        let header = br#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(&1f32.to_le_bytes());
        bytes
    }

    #[test]
    fn unpinned_weights_must_be_a_safetensors_file() {
        let good = safetensors_bytes();
        let tmp = tempfile::tempdir().unwrap();
        let checks: Vec<(&'static str, Check)> = FILES
            .iter()
            .map(|&file| (file, check_for(&catalog::E5_SMALL, file)))
            .collect();
        let html = Server::start(&[
            (WEIGHTS, b"<html>rate limited</html>".as_slice()),
            ("tokenizer.json", TOKENIZER),
            ("config.json", CONFIG),
        ]);
        let err = fetch_checked(tmp.path(), "e5-small-v2", &html.base, false, &checks).unwrap_err();
        assert!(matches!(err, FetchError::NotSafetensors { .. }), "{err}");
        assert!(err.to_string().contains("e5-small-v2"), "{err}");
        assert!(!tmp.path().join(WEIGHTS).exists());
        // A header that claims more than the file holds is a cut-off download.
        let mut cut = good.clone();
        cut.truncate(20);
        let cut_server = Server::start(&[
            (WEIGHTS, cut.as_slice()),
            ("tokenizer.json", TOKENIZER),
            ("config.json", CONFIG),
        ]);
        assert!(
            fetch_checked(tmp.path(), "e5-small-v2", &cut_server.base, false, &checks).is_err()
        );
        let server = Server::start(&[
            (WEIGHTS, good.as_slice()),
            ("tokenizer.json", TOKENIZER),
            ("config.json", CONFIG),
        ]);
        let fetched =
            fetch_checked(tmp.path(), "e5-small-v2", &server.base, false, &checks).unwrap();
        assert_eq!(fetched.downloaded, FILES.to_vec());
        let again = fetch_checked(tmp.path(), "e5-small-v2", &server.base, false, &checks).unwrap();
        assert_eq!(again.already_present, FILES.to_vec());
    }

    #[test]
    fn fetches_into_a_new_folder_then_downloads_nothing_the_second_time() {
        let server = good_server();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a").join("model");

        let first = fetch_checked(&dir, "m", &server.base, false, &checks()).unwrap();
        assert_eq!(first.downloaded, FILES.to_vec());
        assert!(first.already_present.is_empty());
        let total = (WEIGHTS_BYTES.len() + TOKENIZER.len() + CONFIG.len()) as u64;
        assert_eq!(first.bytes, total);
        assert_eq!(fs::read(dir.join(WEIGHTS)).unwrap(), WEIGHTS_BYTES);
        assert_eq!(fs::read(dir.join("tokenizer.json")).unwrap(), TOKENIZER);
        assert_eq!(fs::read(dir.join("config.json")).unwrap(), CONFIG);
        assert!(others(&dir).is_empty(), "{:?}", others(&dir));

        let second = fetch_checked(&dir, "m", &server.base, false, &checks()).unwrap();
        assert!(second.downloaded.is_empty());
        assert_eq!(second.already_present, FILES.to_vec());
        assert_eq!(second.bytes, 0);
        for file in FILES {
            assert_eq!(server.hits(file), 1, "{file}");
        }
    }

    #[test]
    fn an_invalid_present_file_is_replaced_and_a_valid_one_kept() {
        let server = good_server();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join(WEIGHTS), b"truncated").unwrap();
        fs::write(dir.join("tokenizer.json"), b"{\"model\": ").unwrap();
        fs::write(dir.join("config.json"), b"{\"differs\": \"upstream\"}").unwrap();

        let fetched = fetch_checked(dir, "m", &server.base, false, &checks()).unwrap();
        assert_eq!(fetched.downloaded, vec![WEIGHTS, "tokenizer.json"]);
        assert_eq!(fetched.already_present, vec!["config.json"]);
        assert_eq!(fs::read(dir.join(WEIGHTS)).unwrap(), WEIGHTS_BYTES);
        assert_eq!(fs::read(dir.join("tokenizer.json")).unwrap(), TOKENIZER);
        assert_eq!(
            fs::read(dir.join("config.json")).unwrap(),
            b"{\"differs\": \"upstream\"}"
        );
        assert_eq!(server.hits("config.json"), 0);
    }

    #[test]
    fn wrong_weights_are_removed_and_an_older_copy_is_not_touched() {
        let server = Server::start(&[
            (WEIGHTS, b"not the model"),
            ("tokenizer.json", TOKENIZER),
            ("config.json", CONFIG),
        ]);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();

        let err = fetch_checked(dir, "m", &server.base, false, &checks()).unwrap_err();
        assert!(
            matches!(err, FetchError::Checksum { file: WEIGHTS, .. }),
            "{err}"
        );
        assert!(!dir.join(WEIGHTS).exists());
        assert!(others(dir).is_empty(), "{:?}", others(dir));

        // A present but invalid copy stays as it was: nothing is renamed over it.
        fs::write(dir.join(WEIGHTS), b"old").unwrap();
        fetch_checked(dir, "m", &server.base, false, &checks()).unwrap_err();
        assert_eq!(fs::read(dir.join(WEIGHTS)).unwrap(), b"old");
        assert!(others(dir).is_empty(), "{:?}", others(dir));
    }

    #[test]
    fn a_download_that_is_not_json_is_refused() {
        let server = Server::start(&[
            (WEIGHTS, WEIGHTS_BYTES),
            ("tokenizer.json", b"<html>rate limited</html>"),
            ("config.json", CONFIG),
        ]);
        let tmp = tempfile::tempdir().unwrap();
        let err = fetch_checked(tmp.path(), "m", &server.base, false, &checks()).unwrap_err();
        assert!(
            matches!(
                err,
                FetchError::NotJson {
                    file: "tokenizer.json",
                    ..
                }
            ),
            "{err}"
        );
        assert!(!tmp.path().join("tokenizer.json").exists());
        assert!(others(tmp.path()).is_empty());
    }

    #[test]
    fn http_errors_name_the_url_on_one_line() {
        let server = Server::start(&[]);
        let tmp = tempfile::tempdir().unwrap();
        let err = fetch(tmp.path(), &catalog::MINILM, &server.base, false).unwrap_err();
        let url = format!("{}{WEIGHTS}", server.base);
        assert!(
            matches!(&err, FetchError::Status { status: 404, url: u, .. } if *u == url),
            "{err}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&url) && message.contains("404"),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }

    #[test]
    fn a_base_url_that_is_not_http_is_refused_before_anything_is_created() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("model");
        for base in ["", "huggingface.co/x/", "file:///tmp/model/"] {
            let err = fetch(&dir, &catalog::MINILM, base, false).unwrap_err();
            assert!(matches!(err, FetchError::BadUrl(_)), "{base}: {err}");
        }
        assert!(!dir.exists());
    }

    #[test]
    fn an_unreachable_server_is_a_network_error_on_one_line() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let tmp = tempfile::tempdir().unwrap();
        let err = fetch(
            tmp.path(),
            &catalog::MINILM,
            &format!("http://127.0.0.1:{port}"),
            false,
        )
        .unwrap_err();
        assert!(matches!(err, FetchError::Network { .. }), "{err}");
        let message = err.to_string();
        let url = format!("http://127.0.0.1:{port}/{WEIGHTS}");
        assert!(message.contains(&url), "{message}");
        assert!(message.contains("ALETHEIA_MODEL_URL"), "{message}");
        assert!(!message.contains('\n'), "{message}");
        assert!(others(tmp.path()).is_empty());
    }

    #[test]
    fn only_idle_unlocked_parts_are_cleaned_up() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let old = std::time::SystemTime::now() - 2 * STALE_AFTER;
        let make = |name: &str, age: Option<std::time::SystemTime>| {
            let file = File::create(dir.join(name)).unwrap();
            if let Some(time) = age {
                file.set_modified(time).unwrap();
            }
            file
        };
        make(".model.safetensors.1.part", Some(old));
        let live = make(".model.safetensors.2.part", Some(old));
        live.lock().unwrap();
        make(".config.json.3.part", None);
        make(".unrelated.4.part", Some(old));

        remove_stale_parts(dir, &checks());
        let mut left = others(dir);
        left.sort();
        assert_eq!(
            left,
            [
                ".config.json.3.part",
                ".model.safetensors.2.part",
                ".unrelated.4.part"
            ]
        );
    }
}
