//! `optlab-fuzz`: a mutation fuzzer over the shared corpus (`../shared/corpus`) that runs
//! every stage of optlab-core on each input and reports panics, aborts and slow inputs.
//!
//! Why a workspace member with its own binary, not a core example or `cargo fuzz`: the
//! memory cap needs a global allocator of its own (a core example would impose it on
//! nothing else, but `cargo fuzz` needs nightly and libFuzzer, and the test command must run
//! on the stable toolchain on two cores). It is not a default member, so `cargo test` and
//! `cargo build` at the root do not build it; it is built with `--profile fuzz` (release
//! without LTO and with `panic = "unwind"`: the release profile aborts on panic, and
//! `catch_unwind` needs unwinding).
//!
//! Process layout: the parent generates inputs (a pure function of seed and index) and hands
//! them to a worker process (this binary with `--worker`), which runs the stages under
//! `catch_unwind` on a thread with a 2 MiB stack — Rust's default for spawned threads, and
//! nearer WebAssembly's 1 MiB than the 8 MiB of a main thread — under a counting allocator
//! that fails past the memory cap. An abort (memory cap, stack overflow) kills only the
//! worker; the parent counts it, starts a new one and goes on. A worker that takes longer
//! than `--kill-after-s` on one input is killed and counted as an abort too. Inputs slower
//! than `--time-cap-ms` are reported. Every failure is minimised (delta debugging by lines,
//! then characters) and saved with its original to `--out`.
//!
//! Usage: `optlab-fuzz [--seed S] [--count N] [--jobs J] [--corpus DIR] [--out DIR]
//! [--time-cap-ms MS] [--mem-cap-mib MIB] [--kill-after-s S] [--min-trials K] [--only INDEX]
//! [--max-seconds S]`;
//! `optlab-fuzz --replay FILE` runs the stages on one file in this process (a panic shows
//! its backtrace). Exit status 1 if any input panicked or aborted.

mod alloc;
mod minimise;
mod mutate;
mod stages;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

/// Stack of the thread that runs the stages (see the module comment).
const STAGE_STACK: usize = 2 << 20;

struct Args {
    seed: u64,
    count: usize,
    jobs: usize,
    corpus: PathBuf,
    out: PathBuf,
    time_cap: Duration,
    mem_cap: usize,
    kill_after: Duration,
    min_trials: usize,
    only: Option<usize>,
    /// Stop taking new inputs after this long (a long run in a fixed time).
    max_time: Option<Duration>,
}

fn usage(msg: &str) -> ! {
    eprintln!("optlab-fuzz: {msg}");
    eprintln!(
        "usage: optlab-fuzz [--seed S] [--count N] [--jobs J] [--corpus DIR] [--out DIR] [--time-cap-ms MS] \
         [--mem-cap-mib MIB] [--kill-after-s S] [--min-trials K] [--only INDEX] [--max-seconds S] | --replay FILE | --selftest"
    );
    std::process::exit(2)
}

fn default_corpus() -> PathBuf {
    std::env::var_os("OPTLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
        .join("corpus")
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        seed: 1,
        count: 1000,
        jobs: 1,
        corpus: default_corpus(),
        out: PathBuf::from("target/fuzz-findings"),
        time_cap: Duration::from_millis(1000),
        mem_cap: 1 << 30,
        kill_after: Duration::from_secs(20),
        min_trials: 300,
        only: None,
        max_time: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let num = |v: String| v.parse::<u64>().map_err(|_| format!("{flag}: `{v}` is not a number"));
        match flag.as_str() {
            "--worker" => worker_main(),
            "--selftest" => selftest(),
            "--replay" => replay(&val()?),
            "--seed" => a.seed = num(val()?)?,
            "--count" => a.count = num(val()?)? as usize,
            "--jobs" => a.jobs = (num(val()?)? as usize).max(1),
            "--corpus" => a.corpus = PathBuf::from(val()?),
            "--out" => a.out = PathBuf::from(val()?),
            "--time-cap-ms" => a.time_cap = Duration::from_millis(num(val()?)?),
            "--mem-cap-mib" => a.mem_cap = (num(val()?)? as usize) << 20,
            "--kill-after-s" => a.kill_after = Duration::from_secs(num(val()?)?),
            "--min-trials" => a.min_trials = num(val()?)? as usize,
            "--only" => a.only = Some(num(val()?)? as usize),
            "--max-seconds" => a.max_time = Some(Duration::from_secs(num(val()?)?)),
            _ => return Err(format!("unknown argument `{flag}`")),
        }
    }
    Ok(a)
}

// ---- worker ----

fn worker_main() -> ! {
    let cap = std::env::var("OPTLAB_FUZZ_MEM_CAP").ok().and_then(|v| v.parse().ok()).unwrap_or(1usize << 30);
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map_or(String::new(), |l| format!("{}:{}", l.file(), l.line()));
        let stage = stages::STAGES.get(alloc::STAGE.load(Ordering::Relaxed)).copied().unwrap_or("?");
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{at} in stage {stage}: {msg}"));
    }));
    let h = std::thread::Builder::new().stack_size(STAGE_STACK).spawn(move || worker_loop(cap));
    let code = match h.map(|h| h.join()) {
        Ok(Ok(())) => 0,
        _ => 3,
    };
    std::process::exit(code)
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

fn worker_loop(cap: usize) {
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    loop {
        let mut len = [0u8; 4];
        if stdin.read_exact(&mut len).is_err() {
            return;
        }
        let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
        if stdin.read_exact(&mut buf).is_err() {
            return;
        }
        let text = String::from_utf8_lossy(&buf).into_owned();
        drop(buf);
        alloc::reset_peak();
        // The cap counts what the stages allocate beyond what the worker holds already.
        alloc::set_cap(alloc::peak().saturating_add(cap));
        let t = Instant::now();
        let r = std::panic::catch_unwind(|| stages::run_all(&text));
        let us = t.elapsed().as_micros();
        alloc::set_cap(usize::MAX);
        alloc::STAGE.store(0, Ordering::Relaxed);
        let line = match r {
            Ok(o) => format!(
                "ok\t{us}\t{}\t{}\t{}\t{}",
                o.analysed,
                alloc::peak(),
                o.slowest.1,
                o.pass_failures.first().map_or("-", String::as_str)
            ),
            Err(_) => format!("panic\t{us}\t{}", LAST_PANIC.with(|p| p.borrow().clone())),
        };
        let line = line.replace('\n', "\\n");
        if writeln!(stdout, "{line}").and_then(|()| stdout.flush()).is_err() {
            return;
        }
    }
}

/// Runs the stages on one file here, without catching anything.
fn replay(path: &str) -> ! {
    let bytes = std::fs::read(path).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
    let text = String::from_utf8_lossy(&bytes);
    let t = Instant::now();
    let o = stages::run_all(&text);
    println!(
        "{path}: {} ms (slowest stage: {}, {} ms); peak {} MiB",
        t.elapsed().as_millis(),
        o.slowest.1,
        o.slowest.0.as_millis(),
        alloc::peak() >> 20
    );
    for f in o.pass_failures {
        println!("pass failure: {f}");
    }
    std::process::exit(0)
}

// ---- parent ----

/// Checks the harness itself: a panic, an allocation past the cap, a stack overflow and a
/// slow input each give the verdict they should, and the worker keeps serving after each.
fn selftest() -> ! {
    std::env::set_var("OPTLAB_FUZZ_SELFTEST", "1");
    let exe = std::env::current_exe().unwrap_or_else(|e| usage(&format!("cannot find this binary: {e}")));
    let mut w = Worker::spawn(&exe, 256 << 20).unwrap_or_else(|e| usage(&format!("cannot start a worker: {e}")));
    let kill = Duration::from_secs(30);
    let fine = "@main {\n  x: int = const 1;\n  print x;\n}\n";
    let mut bad = Vec::new();
    let mut check = |name: &str, ok: bool, v: &Verdict| {
        println!("selftest {name}: {} ({v:?})", if ok { "ok" } else { "WRONG" });
        if !ok {
            bad.push(name.to_string());
        }
    };
    let v = w.eval(fine, kill);
    check("clean input", matches!(&v, Verdict::Ok { analysed: 1, .. }), &v);
    let v = w.eval("FUZZ-PANIC", kill);
    check("panic", matches!(&v, Verdict::Panic { msg } if msg.contains("self-test panic")), &v);
    let v = w.eval("FUZZ-OOM", kill);
    check("memory cap", matches!(&v, Verdict::Abort { why } if why.contains("memory")), &v);
    let v = w.eval("FUZZ-STACK", kill);
    check("stack overflow", matches!(&v, Verdict::Abort { why } if why.contains("overflow")), &v);
    let v = w.eval("FUZZ-SLOW", kill);
    check("slow input", matches!(&v, Verdict::Ok { us, .. } if *us >= 1_500_000), &v);
    let v = w.eval("FUZZ-SLOW", Duration::from_millis(200));
    check("hard time limit", matches!(&v, Verdict::Abort { why } if why.contains("killed")), &v);
    let v = w.eval(fine, kill);
    check("clean input after", matches!(&v, Verdict::Ok { analysed: 1, .. }), &v);
    let mut fails = |s: &str| matches!(w.eval(s, kill), Verdict::Panic { .. });
    let small = minimise::minimise(&format!("{}\nFUZZ-PANIC\n{}", fine.repeat(20), fine), 2000, &mut fails);
    println!("selftest minimise: {small:?}");
    if small != "FUZZ-PANIC" {
        bad.push("minimise".into());
    }
    std::process::exit(if bad.is_empty() { 0 } else { 1 })
}

#[derive(Clone, Debug)]
enum Verdict {
    Ok { us: u64, stage: String, pass_failure: Option<String>, analysed: usize },
    Panic { msg: String },
    /// The worker died (memory cap, stack overflow) or was killed after the hard time limit.
    Abort { why: String },
}

struct Worker {
    exe: PathBuf,
    mem_cap: usize,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Worker {
    fn spawn(exe: &Path, mem_cap: usize) -> std::io::Result<Worker> {
        let mut child = Command::new(exe)
            .arg("--worker")
            .env("RUST_BACKTRACE", "0")
            .env("OPTLAB_FUZZ_MEM_CAP", mem_cap.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?;
        let mut err = child.stderr.take().ok_or_else(|| std::io::Error::other("no stderr"))?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
                s.push_str(&String::from_utf8_lossy(&buf[..n]));
                if s.len() > 8192 {
                    let cut = s.len() - 4096;
                    let cut = (cut..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
                    s.drain(..cut);
                }
            }
        });
        Ok(Worker { exe: exe.to_path_buf(), mem_cap, child, stdin, lines, stderr })
    }

    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        match Worker::spawn(&self.exe, self.mem_cap) {
            Ok(w) => *self = w,
            Err(e) => {
                eprintln!("optlab-fuzz: cannot restart a worker: {e}");
                std::process::exit(2)
            }
        }
    }

    fn eval(&mut self, input: &str, kill_after: Duration) -> Verdict {
        let len = (input.len() as u32).to_le_bytes();
        if self.stdin.write_all(&len).and_then(|()| self.stdin.write_all(input.as_bytes())).and_then(|()| self.stdin.flush()).is_err() {
            return self.died("the worker exited before reading the input".into());
        }
        match self.lines.recv_timeout(kill_after) {
            Ok(l) => {
                let mut f = l.split('\t');
                let kind = f.next().unwrap_or("");
                let us = f.next().and_then(|v| v.parse().ok()).unwrap_or(0);
                if kind == "ok" {
                    let analysed = f.next().and_then(|v| v.parse().ok()).unwrap_or(0);
                    let _peak = f.next();
                    let stage = f.next().unwrap_or("").to_string();
                    let pf = f.next().filter(|&p| p != "-").map(str::to_string);
                    Verdict::Ok { us, stage, pass_failure: pf, analysed }
                } else {
                    Verdict::Panic { msg: f.collect::<Vec<_>>().join("\t") }
                }
            }
            Err(RecvTimeoutError::Timeout) => self.died(format!("killed after {} s", kill_after.as_secs())),
            Err(RecvTimeoutError::Disconnected) => {
                let _ = self.child.wait();
                // Let the stderr reader catch up with the dying worker's last words.
                std::thread::sleep(Duration::from_millis(20));
                let tail = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
                let last: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
                let known = ["memory cap exceeded", "memory allocation", "overflowed its stack"];
                let why = match last.iter().rev().find(|l| known.iter().any(|k| l.contains(k))) {
                    Some(l) => l.to_string(),
                    None => last[last.len().saturating_sub(2)..].join(" / "),
                };
                self.died(if why.is_empty() { "the worker died".into() } else { why })
            }
        }
    }

    fn died(&mut self, why: String) -> Verdict {
        self.restart();
        Verdict::Abort { why }
    }
}

struct Corpus {
    files: Vec<(PathBuf, String)>,
}

impl Corpus {
    fn load(dir: &Path) -> Corpus {
        let mut files = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else { continue };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "bril" || x == "sil") {
                    if let Ok(t) = std::fs::read_to_string(&p) {
                        files.push((p, t));
                    }
                }
            }
        }
        files.sort();
        Corpus { files }
    }

    /// Input `index` of the run with `seed`: (its base file, the text).
    fn input(&self, seed: u64, index: usize) -> (&Path, String) {
        let mut rng = mutate::Rng::new(seed.wrapping_mul(0x1000_0000_01B3) ^ index as u64);
        let (path, base) = &self.files[rng.below(self.files.len())];
        let other = &self.files[rng.below(self.files.len())].1;
        (path, mutate::mutate(&mut rng, base, other))
    }
}

#[derive(Default)]
struct Tally {
    done: usize,
    panics: usize,
    aborts: usize,
    slowest: (u64, usize, String),
    slow: Vec<(usize, u64, String)>,
    pass_failures: usize,
    /// Inputs with at least one function that parsed and verified.
    analysed_inputs: usize,
    /// Failure signatures already minimised and saved (one reproducer per signature).
    saved: Vec<String>,
    findings: Vec<String>,
}

/// What makes two failures the same, for minimising and for saving one reproducer each.
fn signature(v: &Verdict, time_cap: Duration) -> Option<String> {
    match v {
        Verdict::Panic { msg, .. } => Some(format!("panic {}", msg.split(" in stage").next().unwrap_or(msg))),
        Verdict::Abort { why } => {
            let kind = if why.contains("memory") { "memory" } else if why.contains("killed") { "timeout" } else { "abort" };
            Some(format!("abort {kind}"))
        }
        Verdict::Ok { us, stage, .. } if *us as u128 > time_cap.as_micros() => Some(format!("slow {stage}")),
        Verdict::Ok { pass_failure: Some(p), .. } => Some(format!("pass-failure {}", p.split(':').next().unwrap_or(p))),
        Verdict::Ok { .. } => None,
    }
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| usage(&e));
    let corpus = Corpus::load(&args.corpus);
    if corpus.files.is_empty() {
        eprintln!("optlab-fuzz: no .bril or .sil files under {}", args.corpus.display());
        std::process::exit(2);
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| usage(&format!("cannot find this binary: {e}")));
    let t0 = Instant::now();
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let indices: Vec<usize> = match args.only {
        Some(i) => vec![i],
        None => (0..args.count).collect(),
    };
    let args = Arc::new(args);
    let corpus = Arc::new(corpus);
    let indices = Arc::new(indices);
    let threads: Vec<_> = (0..args.jobs.min(indices.len()).max(1))
        .map(|_| {
            let (args, corpus, tally, next, indices, exe) =
                (Arc::clone(&args), Arc::clone(&corpus), Arc::clone(&tally), Arc::clone(&next), Arc::clone(&indices), exe.clone());
            std::thread::spawn(move || {
                let mut w = Worker::spawn(&exe, args.mem_cap).unwrap_or_else(|e| usage(&format!("cannot start a worker: {e}")));
                loop {
                    if args.max_time.is_some_and(|m| t0.elapsed() > m) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&index) = indices.get(k) else { break };
                    let (base, input) = corpus.input(args.seed, index);
                    let v = w.eval(&input, args.kill_after);
                    record(&args, &tally, &mut w, index, base, &input, v);
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    let t = tally.lock().unwrap_or_else(|e| e.into_inner());
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "fuzzed {} inputs: {} panics, {} aborts, slowest {} ms",
        t.done,
        t.panics,
        t.aborts,
        t.slowest.0 / 1000
    );
    println!(
        "  seed {}, {:.1} s, {:.0} inputs/s, {} reached the passes; slowest: input {} (stage {}); {} over {} ms; {} pass failures",
        args.seed,
        secs,
        t.done as f64 / secs.max(1e-9),
        t.analysed_inputs,
        t.slowest.1,
        t.slowest.2,
        t.slow.len(),
        args.time_cap.as_millis(),
        t.pass_failures
    );
    for (i, us, stage) in t.slow.iter().take(20) {
        println!("  slow: input {i}: {} ms in {stage}", us / 1000);
    }
    for f in &t.findings {
        println!("  {f}");
    }
    std::process::exit(if t.panics + t.aborts > 0 { 1 } else { 0 });
}

fn record(args: &Args, tally: &Mutex<Tally>, w: &mut Worker, index: usize, base: &Path, input: &str, v: Verdict) {
    let sig = signature(&v, args.time_cap);
    {
        let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
        t.done += 1;
        if t.done % 20_000 == 0 {
            eprintln!("… {} inputs: {} panics, {} aborts, slowest {} ms", t.done, t.panics, t.aborts, t.slowest.0 / 1000);
        }
        match &v {
            Verdict::Panic { .. } => t.panics += 1,
            Verdict::Abort { .. } => t.aborts += 1,
            Verdict::Ok { us, stage, pass_failure, analysed } => {
                t.analysed_inputs += usize::from(*analysed > 0);
                if *us > t.slowest.0 {
                    t.slowest = (*us, index, stage.clone());
                }
                if *us as u128 > args.time_cap.as_micros() {
                    t.slow.push((index, *us, stage.clone()));
                }
                if pass_failure.is_some() {
                    t.pass_failures += 1;
                }
            }
        }
        let Some(sig) = &sig else { return };
        if t.saved.contains(sig) {
            return;
        }
        t.saved.push(sig.clone());
    }
    let Some(sig) = sig else { return };
    let ext = base.extension().and_then(|e| e.to_str()).unwrap_or("txt");
    let stem = format!("{}-{index}", sig.split(' ').next().unwrap_or("finding"));
    let why = match &v {
        Verdict::Panic { msg, .. } => msg.clone(),
        Verdict::Abort { why } => why.clone(),
        Verdict::Ok { us, stage, pass_failure, .. } => {
            format!("{} ms (slowest stage {stage}); {}", us / 1000, pass_failure.as_deref().unwrap_or(""))
        }
    };
    // The original and the reason first, so a long minimisation (or a killed run) loses
    // nothing; then say so at once on stderr.
    let save = |name: String, text: &str| -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&args.out)?;
        let p = args.out.join(name);
        std::fs::write(&p, text)?;
        Ok(p)
    };
    let note = format!("{sig}\n{why}\nseed {} input {index} (base {})\n", args.seed, base.display());
    let saved = save(format!("{stem}.why"), &note).and_then(|_| save(format!("{stem}.orig.{ext}"), input));
    eprintln!("found {sig} at input {index}: {why}");
    // Minimise: keep a reduction if it still fails with the same signature. A slow or
    // hanging input costs up to a second or the kill time per trial, so it gets few trials
    // and a short kill time (a reduction that runs longer than that is not kept).
    let costly = sig.starts_with("slow") || sig.contains("timeout");
    let kill = if costly { args.kill_after.min(args.time_cap * 5) } else { args.kill_after };
    let mut fails = |s: &str| signature(&w.eval(s, kill), args.time_cap).as_deref() == Some(sig.as_str());
    let trials = if costly { args.min_trials.min(20) } else { args.min_trials };
    let small = minimise::minimise(input, trials, &mut fails);
    let saved = saved.and_then(|_| save(format!("{stem}.{ext}"), &small));
    let line = match saved {
        Ok(p) => format!("{sig}: input {index} → {} ({} bytes, from {})", p.display(), small.len(), input.len()),
        Err(e) => format!("{sig}: input {index}: could not save: {e}"),
    };
    tally.lock().unwrap_or_else(|e| e.into_inner()).findings.push(line);
}
