//! LLVM's FileCheck, as Swift's RUN lines use it: the binary, a scratch directory, and the
//! check lines of each function of a test file.

use std::path::{Path, PathBuf};
use std::process::Command;

/// FileCheck from Debian's `llvm-15-tools` (the setup script installs it), or `$FILECHECK`.
/// Missing is a failure, never a skip.
pub fn filecheck() -> PathBuf {
    let path = std::env::var_os("FILECHECK")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-15/bin/FileCheck"));
    assert!(
        path.is_file(),
        "LLVM FileCheck not found at {}: run the setup script (it installs Debian's llvm-15-tools), \
         or point FILECHECK at a FileCheck binary",
        path.display()
    );
    path
}

pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("optlab-filecheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Runs FileCheck; `Err` holds its diagnostics.
pub fn run_filecheck(check_file: &Path, input: &str, tag: &str) -> Result<(), String> {
    let input_path = temp(&format!("{tag}.out"));
    std::fs::write(&input_path, input).expect("write FileCheck input");
    let out = Command::new(filecheck())
        .arg(check_file)
        .arg("--input-file")
        .arg(&input_path)
        .output()
        .expect("run FileCheck");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The check lines of each function: from a `CHECK-LABEL` naming `@function` up to the next
/// such label. Returns `(function, lines)` in file order.
pub fn check_groups(text: &str) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("//") else { continue };
        let rest = rest.trim_start();
        if !rest.starts_with("CHECK") {
            continue;
        }
        if let Some(label) = rest.strip_prefix("CHECK-LABEL:") {
            if let Some(name) = function_in_label(label) {
                groups.push((name, Vec::new()));
            }
        }
        if let Some(g) = groups.last_mut() {
            g.1.push(line.to_string());
        }
    }
    groups
}

/// `sil [ossa] @dead1 :` → `dead1` (the first `@` not preceded by `$`).
fn function_in_label(label: &str) -> Option<String> {
    let bytes = label.as_bytes();
    let at = (0..bytes.len()).find(|&i| bytes[i] == b'@' && (i == 0 || bytes[i - 1] != b'$'))?;
    let name: String = label[at + 1..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
    (!name.is_empty()).then_some(name)
}

