//! Local value numbering:
//!
//! 1. **Bril's own goldens** (`examples-test/lvn`, the output of the course's `lvn.py` then
//!    `tdce.py`): the lab's LVN followed by its DCE prints what the golden program prints and
//!    executes no more instructions.
//! 2. **Random programs**: LVN keeps behaviour and never executes more instructions (it only
//!    turns instructions into copies or constants), alone and followed by DCE.
//! 3. **Replay**: replaying the trace gives the output at the end, every prefix verifies, and
//!    the table at each step lists each value once.

mod common;

use optlab_core::interp::{bril, RunConfig};
use optlab_core::ir::verify;
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::{lvn, Options, Outcome};
use optlab_core::testgen::{self, GenConfig};
use optlab_core::{parse_module, Lang, Module};

fn through(m: &Module, passes: &str) -> Module {
    let (out, runs) = Pipeline::parse(passes).unwrap().run_module(m, &Options::default());
    for r in &runs {
        for s in &r.stages {
            assert!(s.outcome == Outcome::Ran, "{}: {:?}", s.pass.slug, s.outcome);
        }
    }
    out
}

#[test]
fn bril_lvn_goldens_print_the_same_and_run_no_more_instructions() {
    let Some(shared) = common::shared_dir() else { return };
    let dir = shared.join("corpus/bril/examples-test/lvn");
    let mut compared = 0;
    let (mut ours, mut theirs) = (0u64, 0u64);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("bril") {
            continue;
        }
        let golden = std::fs::read_to_string(p.with_extension("out")).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let m = parse_module(Lang::Bril, &p.to_string_lossy(), &text).unwrap();
        let g = parse_module(Lang::Bril, "golden.bril", &golden).unwrap();
        // The `# ARGS:` lines here are lvn.py's options; the programs take no arguments but
        // `fold-comparisons`' two, which any values exercise.
        let args: Vec<String> = m.function("main").map_or(0, |f| f.params.len()).pipe(|n| (0..n).map(|k| (k + 3).to_string()).collect());
        let cfg = RunConfig::with_args(args);
        let want = bril::run(&g, &cfg);
        let got = bril::run(&through(&m, "lvn,dce"), &cfg);
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(got.stdout, want.stdout, "{name}");
        assert_eq!(got.error.is_some(), want.error.is_some(), "{name}: {:?} / {:?}", got.error, want.error);
        assert!(got.dyn_inst <= want.dyn_inst, "{name}: {} instructions, the golden {}", got.dyn_inst, want.dyn_inst);
        ours += got.dyn_inst;
        theirs += want.dyn_inst;
        compared += 1;
    }
    eprintln!("{compared} goldens: {ours} instructions executed, Bril's goldens {theirs}");
    assert!(compared >= 15, "only {compared} goldens");
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

#[test]
fn random_programs_keep_behaviour_and_never_run_more() {
    let mut reused = 0;
    for (seeds, cfg) in [(0..800u64, GenConfig::default()), (70_000..70_200, GenConfig { statements: 30, int_vars: 3, ..GenConfig::default() })] {
        let stats = testgen::check_pass_with(&cfg, seeds.clone(), |m| {
            let out = through(m, "lvn");
            reused += m.functions.iter().filter_map(|f| lvn::run(f, lvn::LvnOptions::default()).ok()).map(|o| o.stats.reused + o.stats.folded).sum::<usize>();
            out
        })
        .unwrap_or_else(|fail| panic!("{fail}"));
        assert!(stats.dyn_after <= stats.dyn_before && stats.never_grew(), "{:?}", stats.worst_growth);
        // DCE removes a dead division that would trap (as Swift's and LLVM's do), so with DCE the
        // programs have no unguarded division.
        let no_traps = GenConfig { unguarded_div_percent: 0, ..cfg };
        testgen::check_pass_with(&no_traps, seeds, |m| through(m, "lvn,dce")).unwrap_or_else(|fail| panic!("lvn,dce: {fail}"));
    }
    assert!(reused > 500, "only {reused} computations reused or folded");
}

#[test]
fn the_replay_is_the_output_and_every_step_verifies() {
    for seed in 0..300u64 {
        let g = testgen::generate(seed, &GenConfig::default());
        for f in &g.module.functions {
            let out = lvn::run(f, lvn::LvnOptions::default()).unwrap();
            let t = &out.trace;
            for k in 0..=t.events.len() {
                let h = lvn::replay_to(f, t, k);
                verify(&h).unwrap_or_else(|d| panic!("seed {seed}, step {k}: {d:?}"));
                let (_, rows) = lvn::table_at(t, k);
                let mut nums: Vec<u32> = rows.iter().map(|r| r.0.num).collect();
                nums.dedup();
                assert_eq!(nums.len(), rows.len(), "seed {seed}: a value listed twice");
                if k == t.events.len() {
                    assert_eq!(h.without_spans(), out.function.without_spans(), "seed {seed}");
                }
            }
            assert_eq!(lvn::step_texts(&lvn::base(f, t), t).len(), t.events.len() + 1);
        }
    }
}
