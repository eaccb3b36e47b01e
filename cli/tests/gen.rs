//! `optlab gen`: generated stress programs parse back, have about the asked size, and are
//! reproducible from their seed.

use optlab_core::{parse_module, Lang};

mod common;
use common::optlab;

fn gen(args: &[&str]) -> String {
    let mut all = vec!["gen"];
    all.extend_from_slice(args);
    let out = optlab(&all, None);
    assert!(out.status.success(), "{all:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn generated_functions_parse_back_with_about_the_asked_number_of_blocks() {
    for n in [1usize, 50, 200, 1000] {
        let text = gen(&["--blocks", &n.to_string(), "--seed", "3"]);
        let m = parse_module(Lang::Bril, "gen.bril", &text).unwrap_or_else(|e| panic!("{n}: {e:?}\n{text}"));
        let fs: Vec<_> = m.bodies().collect();
        assert_eq!(fs.len(), 1);
        let blocks = fs[0].layout.len();
        assert!(blocks >= n && blocks < n + 25, "asked {n}, got {blocks}");
        optlab_core::ir::verify(fs[0]).unwrap_or_else(|e| panic!("{n}: {e:?}"));
    }
}

#[test]
fn the_seed_decides_the_program() {
    let a = gen(&["--blocks", "80", "--seed", "7"]);
    assert_eq!(a, gen(&["--blocks", "80", "--seed", "7", "--lang", "bril"]));
    assert_ne!(a, gen(&["--blocks", "80", "--seed", "8"]));
    assert_eq!(gen(&["--blocks", "30"]), gen(&["--blocks", "30", "--seed", "1"]), "seed 1 is the default");
}

#[test]
fn the_output_feeds_the_other_commands() {
    let text = gen(&["--blocks", "40"]);
    let out = optlab(&["cfg", "-", "--lang", "bril"], Some(&text));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.to_string().contains("\"b0\""), "{json}");
}

#[test]
fn bad_sizes_and_languages_are_refused() {
    for args in [
        &["gen"][..],
        &["gen", "--blocks", "0"],
        &["gen", "--blocks", "-3"],
        &["gen", "--blocks", "1000001"],
        &["gen", "--blocks", "9", "--lang", "sil"],
    ] {
        let out = optlab(args, None);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
