//! What the binary's tests share: running `optlab` with arguments and an optional stdin.

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub fn optlab(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_optlab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run optlab");
    if let Some(text) = stdin {
        // optlab may exit before reading (e.g. a usage error): a broken pipe is fine here.
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().unwrap()
}
