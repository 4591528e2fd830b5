//! Stamps the binding with a hash of the engine's sources, so that results stored under a run key (which
//! includes the core's version) are recomputed after any change to the engine, not only after a release.

use std::fs;
use std::path::Path;

fn hash_dir(dir: &Path, h: &mut u64) {
    let mut entries: Vec<_> = fs::read_dir(dir).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            hash_dir(&path, h);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            println!("cargo:rerun-if-changed={}", path.display());
            for b in path.to_string_lossy().bytes().chain(fs::read(&path).unwrap_or_default()) {
                *h ^= b as u64;
                *h = h.wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
    }
}

fn main() {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for dir in ["../pfabric-core/src", "src"] {
        hash_dir(Path::new(dir), &mut h);
    }
    println!("cargo:rerun-if-changed=../pfabric-core/src");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rustc-env=PFABRIC_SOURCE_HASH={h:016x}");
}
