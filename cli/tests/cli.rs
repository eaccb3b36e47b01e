//! The `optlab` binary end to end: exit codes, error rendering, the fixed JSON shapes.

use serde_json::Value;
use std::process::Output;

mod common;
use common::optlab;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file in a fresh temp dir (kept until the test ends).
fn temp_file(name: &str, text: &str) -> (tempdir::Dir, String) {
    let d = tempdir::Dir::new();
    let p = d.0.join(name);
    std::fs::write(&p, text).unwrap();
    let s = p.to_string_lossy().into_owned();
    (d, s)
}

mod tempdir {
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static N: AtomicUsize = AtomicUsize::new(0);
            let p = std::env::temp_dir().join(format!(
                "optlab-cli-test-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

const DIAMOND: &str = "@main(c: bool) {
  br c .left .right;
.left:
  x: int = const 1;
  jmp .end;
.right:
  x: int = const 2;
  jmp .end;
.end:
  print x;
}
";

const CONTROL_DEPENDENT_SIL: &str = "sil_stage canonical

import Builtin

sil @control_dependent : $@convention(thin) () -> Builtin.Int64 {
bb0:
  %0 = integer_literal $Builtin.Int1, 1
  cond_br %0, bb1, bb2
bb1:
  %2 = integer_literal $Builtin.Int64, 3
  br bb3(%2 : $Builtin.Int64)
bb2:
  %4 = integer_literal $Builtin.Int64, 3
  br bb3(%4 : $Builtin.Int64)
bb3(%6 : $Builtin.Int64):
  return %6 : $Builtin.Int64
}
";

#[test]
fn dom_json_has_the_documented_shape() {
    let (_d, path) = temp_file("diamond.bril", DIAMOND);
    let o = optlab(&["dom", &path, "--format", "json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // Field order is part of the shape other tools read.
    let name_at = text.find("\"name\"").unwrap();
    let idom_at = text.find("\"idom\"").unwrap();
    let front_at = text.find("\"frontier\"").unwrap();
    assert!(name_at < idom_at && idom_at < front_at, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let f = &v["functions"][0];
    assert_eq!(f["name"], "main");
    assert_eq!(f["idom"]["b0"], Value::Null);
    assert_eq!(f["idom"]["left"], "b0");
    assert_eq!(f["idom"]["right"], "b0");
    assert_eq!(f["idom"]["end"], "b0");
    assert_eq!(f["frontier"]["left"], serde_json::json!(["end"]));
    assert_eq!(f["frontier"]["b0"], serde_json::json!([]));
}

#[test]
fn post_dominators_use_null_for_children_of_the_virtual_exit() {
    let (_d, path) = temp_file("diamond.bril", DIAMOND);
    let o = optlab(&["dom", "--post", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let f = &v["functions"][0];
    assert_eq!(f["idom"]["end"], Value::Null);
    assert_eq!(f["idom"]["b0"], "end");
    assert_eq!(f["idom"]["left"], "end");
    assert_eq!(f["frontier"]["left"], serde_json::json!(["b0"]));
}

#[test]
fn post_dominator_trees_name_the_virtual_exit_as_the_web_app_does() {
    let exit = optlab_core::dom::VIRTUAL_EXIT_NAME;
    let (_d, path) = temp_file("diamond.bril", DIAMOND);
    let o = optlab(&["dom", "--post", "--format", "text", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with(&format!("main (post-dominator tree):\n  {exit}\n    end\n")), "{text}");
    let o = optlab(&["dom", "--post", "--format", "dot", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let dot = stdout(&o);
    assert!(dot.contains(&format!("\"{exit}\" [shape=ellipse, style=dashed];")), "{dot}");
    assert!(dot.contains(&format!("\"{exit}\" -> \"end\";")), "{dot}");
}

#[test]
fn cdg_of_the_seed_control_dependent_example() {
    let (_d, path) = temp_file("cd.sil", CONTROL_DEPENDENT_SIL);
    let o = optlab(&["cdg", &path, "--format", "json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let f = &v["functions"][0];
    assert_eq!(f["name"], "control_dependent");
    assert_eq!(f["deps"]["bb1"], serde_json::json!(["bb0"]));
    assert_eq!(f["deps"]["bb2"], serde_json::json!(["bb0"]));
    assert_eq!(f["deps"]["bb0"], serde_json::json!([]));
    assert_eq!(f["deps"]["bb3"], serde_json::json!([]));
}

#[test]
fn stdin_needs_a_language_and_reads_with_one() {
    let o = optlab(&["cfg", "-"], Some(DIAMOND));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--lang"), "{}", stderr(&o));
    let o = optlab(&["cfg", "-", "--lang", "bril"], Some(DIAMOND));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let blocks = v["functions"][0]["blocks"].as_array().unwrap();
    let names: Vec<&str> = blocks.iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["b0", "left", "right", "end"]);
    assert_eq!(blocks[0]["succs"], serde_json::json!(["left", "right"]));
}

#[test]
fn check_reports_errors_with_position_and_exits_1() {
    let (_d, path) = temp_file("bad.bril", "@main {\n  y: int = const;\n  jmp .nowhere;\n}\n");
    let o = optlab(&["check", &path], None);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&format!("{path}:2:")), "{err}");
    assert!(err.contains(&format!("{path}:3:")), "two errors expected: {err}");
    assert!(err.contains('^'), "{err}");
    let (_d2, ok) = temp_file("ok.bril", DIAMOND);
    let o = optlab(&["check", &ok], None);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn print_round_trips_and_renumber_numbers_sil() {
    let (_d, path) = temp_file("cd.sil", CONTROL_DEPENDENT_SIL);
    let o = optlab(&["print", &path, "--renumber"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // sil-opt numbers instructions without results too (`// id: %N`): the input was
    // written that way and prints back the same.
    assert!(text.contains("bb3(%6 : $Builtin.Int64):"), "{text}");
    assert!(text.contains("br bb3(%4 : $Builtin.Int64) // id: %5"), "{text}");
    assert!(text.contains("} // end sil function 'control_dependent'"), "{text}");
    let (_d2, again) = temp_file("again.sil", &text);
    let o2 = optlab(&["print", &again, "--renumber"], None);
    assert_eq!(stdout(&o2), text);
}

#[test]
fn dot_output_is_a_digraph_per_function() {
    let (_d, path) = temp_file("diamond.bril", DIAMOND);
    for cmd in [&["cfg", "--format", "dot"][..], &["dom", "--format", "dot"], &["cdg", "--format", "dot"]] {
        let mut args = cmd.to_vec();
        args.insert(1, &path);
        let o = optlab(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        assert!(text.starts_with("digraph "), "{text}");
        assert!(text.trim_end().ends_with('}'), "{text}");
    }
}

#[test]
fn unknown_extension_and_missing_file_are_clear_errors() {
    let o = optlab(&["cfg", "prog.txt"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot tell the language"), "{}", stderr(&o));
    let o = optlab(&["cfg", "/nonexistent/x.bril"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

const DEAD: &str = "@main {
  a: int = const 4;
  b: int = const 2;
  c: int = const 1;
  d: int = add a b;
  print d;
}
";

#[test]
fn dce_removes_dead_code_explains_and_traces() {
    let (_d, path) = temp_file("dead.bril", DEAD);
    let o = optlab(&["dce", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains("c: int"), "{out}");
    assert!(out.contains("d: int = add a b;"), "{out}");
    // The explanation follows the chain down to the root.
    let o = optlab(&["dce", &path, "--explain", "b0:3"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("add a b") && text.contains("print d"), "{text}");
    let o = optlab(&["dce", &path, "--explain", "b0:2"], None);
    assert!(stdout(&o).contains("c: int = const 1"), "{}", stdout(&o));
    let o = optlab(&["dce", &path, "--explain", "nowhere:0"], None);
    assert_eq!(o.status.code(), Some(1));
    let o = optlab(&["dce", &path, "--trace", "json"], None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v.is_array() && !v[0]["events"].as_array().unwrap().is_empty(), "{v}");
}

#[test]
fn dce_renumbers_sil_like_sil_opt() {
    let src = "sil @dead1 : $@convention(thin) (Int32, Int32) -> Int32 {
bb0(%0 : $Int32, %1 : $Int32):
  %3 = struct_extract %0 : $Int32, #Int32._value
  %8 = struct $Int32 (%3 : $Builtin.Int32)
  return %0 : $Int32
}
";
    let (_d, path) = temp_file("dead1.sil", src);
    let o = optlab(&["dce", &path, "--renumber"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("bb0(%0 : $Int32, %1 : $Int32):\n  return %0 : $Int32 // id: %2\n}"), "{out}");
}

const PARTIAL: &str = "@main(c: bool, a: int, b: int) {
  br c .left .right;
.left:
  x: int = add a b;
  jmp .join;
.right:
  jmp .join;
.join:
  y: int = add a b;
  print y;
}
";

#[test]
fn lcm_json_tables_and_emit() {
    let (_d, path) = temp_file("partial.bril", PARTIAL);
    let o = optlab(&["lcm", &path, "--format", "json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let v: Value = serde_json::from_str(&text).unwrap();
    let f = &v["functions"][0];
    assert_eq!(f["name"], "main");
    assert_eq!(f["expressions"][0]["expr"], "add a b");
    assert_eq!(f["expressions"][0]["blocks"][0]["label"], "b0");
    // The documented field order, as text.
    let order = ["\"label\"", "\"NComp\"", "\"XComp\"", "\"Transp\"", "\"NdSafe\"", "\"XdSafe\"", "\"NuSafe\"",
        "\"XuSafe\"", "\"NEarliest\"", "\"XEarliest\"", "\"NDelayed\"", "\"XDelayed\"", "\"NLatest\"", "\"XLatest\""];
    let pos: Vec<usize> = order.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
    for fmt in ["markdown", "latex", "csv"] {
        let o = optlab(&["lcm", &path, "--format", fmt, "--expr", "add a b"], None);
        assert!(o.status.success(), "{fmt}: {}", stderr(&o));
        assert!(stdout(&o).contains("NdSafe"), "{fmt}: {}", stdout(&o));
    }
    let o = optlab(&["lcm", &path, "--format", "markdown", "--expr", "mul a b"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("add a b"), "lists the expressions there are: {}", stderr(&o));
    let o = optlab(&["lcm", &path, "--emit"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    // The partially redundant `add a b` in .join is gone: computed once on each path.
    let emitted = stdout(&o);
    assert_eq!(emitted.matches("add a b").count(), 2, "{emitted}");
}

#[test]
fn lcm_runs_on_sil_tables_and_emit() {
    let (_d, path) = temp_file("cd.sil", CONTROL_DEPENDENT_SIL);
    let o = optlab(&["lcm", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"functions\""), "{}", stdout(&o));
    let article = concat!(env!("CARGO_MANIFEST_DIR"), "/../static/examples/lcm_article.sil");
    let o = optlab(&["lcm", "--emit", article], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("bb12(%t12 : $Builtin.Int64, %2 : $Builtin.Int64):"), "{}", stdout(&o));
    let o = optlab(&["lcm", "--format", "csv", "--expr", "builtin \"sdiv_Int64\"(%a, %b)", article], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().count() >= 15, "{}", stdout(&o));
}

#[test]
fn run_uses_args_profiles_and_reports_errors_with_position() {
    let src = "# ARGS: 5\n@main(n: int) {\n  one: int = const 1;\n  r: int = add n one;\n  print r;\n}\n";
    let (_d, path) = temp_file("inc.bril", src);
    let o = optlab(&["run", &path, "--profile"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "6\n");
    assert!(stderr(&o).contains("total_dyn_inst: 3"), "{}", stderr(&o));
    let o = optlab(&["run", &path, "41"], None);
    assert_eq!(stdout(&o), "42\n");
    let div = "@main {\n  z: int = const 0;\n  o: int = const 1;\n  q: int = div o z;\n  print q;\n}\n";
    let (_d2, p2) = temp_file("div.bril", div);
    let o = optlab(&["run", &p2], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(&format!("{p2}:4:")), "{}", stderr(&o));
    let spin = "@main {\n.l:\n  jmp .l;\n}\n";
    let (_d3, p3) = temp_file("spin.bril", spin);
    let o = optlab(&["run", &p3, "--step-limit", "1000"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).is_empty());
}

/// `check --ownership` reports Swift's verifier errors at FILE:LINE:COL and exits 1; a valid
/// OSSA function passes; `ownership` prints kinds and constraints (and JSON).
#[test]
fn ownership_check_and_dump() {
    let ok = "sil_stage canonical\nimport Builtin\nclass K {}\nsil [ossa] @f : $@convention(thin) (@owned K) -> () {\nbb0(%0 : @owned $K):\n  %1 = copy_value %0 : $K\n  destroy_value %1 : $K\n  destroy_value %0 : $K\n  %r = tuple ()\n  return %r : $()\n}\n";
    let (_d, path) = temp_file("ok.sil", ok);
    let o = optlab(&["check", "--ownership", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ok (1 OSSA function verified)"));
    let bad = ok.replace("  destroy_value %1 : $K\n", "  destroy_value %0 : $K\n");
    let (_d2, path2) = temp_file("bad.sil", &bad);
    let o = optlab(&["check", "--ownership", &path2], None);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("bad.sil:7:3: error: in @f: Found over consume?!"), "{err}");
    assert!(err.contains("Value:   %0 = argument of bb0 : $K"), "{err}");
    assert!(err.contains("Error! Found a leaked owned value that was never consumed."), "{err}");
    let o = optlab(&["ownership", &path], None);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("%1     owned") && out.contains("DestroyingConsume, accepts owned, lifetime-ending"), "{out}");
    let o = optlab(&["ownership", "--format", "json", &path], None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["functions"][0]["values"][1]["kind"], "owned");
    assert_eq!(v["functions"][0]["verifier"]["checked"], true);
}

/// A Bril program of several files: imports found next to the importing file (transitively),
/// or given with `--with`; an import nothing answers is an error at its line:col, in the file
/// it is in; `# ARGS:` of a program with imports names the linker's folders, not arguments.
#[test]
fn bril_imports_link_files_found_beside_the_program_or_given_with_with() {
    let d = tempdir::Dir::new();
    let write = |name: &str, text: &str| {
        let p = d.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let main = write("main.bril", "# ARGS: libs\nfrom \"mid.bril\" import @twice as @double;\n@main {\n  x: int = const 5;\n  y: int = call @double x;\n  print y;\n}\n");
    write("mid.bril", "from \"base.bril\" import @add;\n@twice(a: int): int {\n  b: int = call @add a a;\n  ret b;\n}\n");
    let base = "@add(a: int, b: int): int {\n  c: int = add a b;\n  ret c;\n}\n";
    write("base.bril", base);
    let o = optlab(&["run", &main], None);
    assert_eq!((stdout(&o).as_str(), o.status.success()), ("10\n", true), "{}", stderr(&o));
    let printed = stdout(&optlab(&["print", &main], None));
    assert!(printed.contains("call @mid.bril___twice x") && printed.contains("@base.bril___add(a: int, b: int): int"), "{printed}");

    // Elsewhere, the library is named with --with; without it the import is an error.
    let d2 = tempdir::Dir::new();
    let alone = d2.0.join("mid.bril");
    std::fs::copy(d.0.join("mid.bril"), &alone).unwrap();
    let alone = alone.to_string_lossy().into_owned();
    let o = optlab(&["check", &alone], None);
    assert!(!o.status.success());
    assert!(stderr(&o).starts_with(&format!("{alone}:1:6: error: `base.bril` is not a file of this program")), "{}", stderr(&o));
    let (_d3, lib) = temp_file("base.bril", base);
    let o = optlab(&["check", &alone, "--with", &lib], None);
    assert!(o.status.success(), "{}", stderr(&o));

    // An error inside an imported file names that file and its own line.
    write("base.bril", "@add(a: int, b: int): int {\n  c: int = add a b;\n  ret d;\n}\n");
    let o = optlab(&["check", &main], None);
    assert!(stderr(&o).contains("base.bril:3:"), "{}", stderr(&o));
}

/// `loops`: a loop nested in another (with its depth and parent), and an irreducible cycle
/// (entered at two blocks) reported as such, not as a loop.
#[test]
fn loops_reports_nesting_and_irreducible_edges() {
    let text = "@main(c: bool) {\n.outer:\n  br c .inner .side;\n.inner:\n  br c .inner .latch;\n.latch:\n  br c .outer .exit;\n.side:\n  br c .a .b;\n.a:\n  br c .b .exit;\n.b:\n  br c .a .exit;\n.exit:\n  ret;\n}\n";
    let (_dir, path) = temp_file("nest.bril", text);
    let o = optlab(&["loops", &path], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("main: 2 natural loops\n"), "{out}");
    assert!(out.contains("\n  loop outer (depth 1): back edges from latch; body outer inner latch\n"), "{out}");
    assert!(out.contains("\n    loop inner (depth 2): back edges from inner; body inner\n"), "{out}");
    assert!(out.contains("irreducible: b → a"), "{out}");
    let j: serde_json::Value = serde_json::from_str(&stdout(&optlab(&["loops", "--format", "json", &path], None))).unwrap();
    let loops = &j["functions"][0]["loops"];
    assert_eq!(loops[1]["parent"], "outer");
    assert_eq!(loops[1]["depth"], 2);
}
