//! Embeds every host adapter in `adapters/` into the binary, so adding a host is adding a file.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("adapters/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = String::from(
        "/// (host, adapter TOML) for every file in adapters/.\npub static ADAPTER_FILES: &[(&str, &str)] = &[\n",
    );
    for f in files {
        println!("cargo:rerun-if-changed={}", f.display());
        let host = f.file_stem().unwrap().to_string_lossy();
        writeln!(
            out,
            "    ({host:?}, include_str!({:?})),",
            f.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("adapters.rs");
    std::fs::write(dest, out).unwrap();
}
