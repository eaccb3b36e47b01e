//! Property tests of the ownership verifier: random OSSA functions built to be valid verify
//! silently, and each mutation of a known kind is reported with its category — drop a
//! `destroy_value` (a leak), duplicate a consume (an over consume), move an `end_borrow` above a
//! use of the borrow (a use outside the lifetime).

use optlab_core::ir::Lang;
use optlab_core::sil::ownership::{analyze, verify, Category};
use optlab_core::sil::types::{env_of, FunctionTypes};
use proptest::prelude::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// A valid OSSA function: copies of an owned argument, borrow scopes with a use inside,
/// forwarding through `struct`, and diamonds that consume a value on both arms. Returns the
/// lines of its body.
fn generate(seed: u64, steps: usize) -> Vec<String> {
    let mut r = Rng(seed);
    let mut lines = vec!["bb0(%0 : @owned $K):".to_string(), "  %f = function_ref @use : $@convention(thin) (@guaranteed K) -> ()".into()];
    let mut live: Vec<String> = vec!["%0".into()];
    let mut n = 0;
    let mut block = 0;
    for _ in 0..steps {
        n += 1;
        let x = live[r.next(live.len() as u64) as usize].clone();
        match r.next(4) {
            0 => {
                lines.push(format!("  %c{n} = copy_value {x} : $K"));
                live.push(format!("%c{n}"));
            }
            1 => {
                lines.push(format!("  %b{n} = begin_borrow {x} : $K"));
                lines.push(format!("  %u{n} = apply %f(%b{n}) : $@convention(thin) (@guaranteed K) -> ()"));
                lines.push(format!("  end_borrow %b{n} : $K"));
            }
            2 if live.len() > 1 => {
                // Wrap a value in a struct (consumes it) and destroy the struct.
                let k = r.next(live.len() as u64) as usize;
                let y = live.remove(k);
                lines.push(format!("  %s{n} = struct $W ({y} : $K)"));
                lines.push(format!("  destroy_value %s{n} : $W"));
            }
            _ if live.len() > 1 => {
                // A diamond consuming one value on both arms.
                let k = r.next(live.len() as u64) as usize;
                let y = live.remove(k);
                let (a, b, j) = (block + 1, block + 2, block + 3);
                block += 3;
                lines.push(format!("  cond_br undef, bb{a}, bb{b}"));
                lines.push(format!("bb{a}:"));
                lines.push(format!("  destroy_value {y} : $K"));
                lines.push(format!("  br bb{j}"));
                lines.push(format!("bb{b}:"));
                lines.push(format!("  destroy_value {y} : $K"));
                lines.push(format!("  br bb{j}"));
                lines.push(format!("bb{j}:"));
            }
            _ => {}
        }
    }
    for x in live {
        lines.push(format!("  destroy_value {x} : $K"));
    }
    lines.push("  %r = tuple ()".into());
    lines.push("  return %r : $()".into());
    lines
}

fn categories(body: &[String]) -> Vec<Category> {
    let src = format!(
        "sil_stage canonical\nimport Builtin\nclass K {{}}\nstruct W {{ var k: K }}\nsil @use : $@convention(thin) (@guaranteed K) -> ()\nsil [ossa] @g : $@convention(thin) (@owned K) -> () {{\n{}\n}}\n",
        body.join("\n")
    );
    let m = optlab_core::parse_module(Lang::Sil, "g.sil", &src).unwrap_or_else(|e| panic!("{src}\n{e:?}"));
    let f = m.function("g").unwrap();
    let fo = analyze(f, &FunctionTypes::new(f, env_of(&m)));
    verify(f, &fo).findings.iter().map(|x| x.category).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn valid_functions_verify_silently(seed in any::<u64>(), steps in 1usize..24) {
        let body = generate(seed, steps);
        prop_assert_eq!(categories(&body), vec![], "{}", body.join("\n"));
    }

    #[test]
    fn dropping_a_destroy_is_a_leak(seed in any::<u64>(), steps in 1usize..24, pick in any::<usize>()) {
        let body = generate(seed, steps);
        let destroys: Vec<usize> = body.iter().enumerate().filter(|(_, l)| l.contains("destroy_value")).map(|(k, _)| k).collect();
        let k = destroys[pick % destroys.len()];
        let mut m = body.clone();
        m.remove(k);
        let cats = categories(&m);
        let leak = [Category::LeakNeverConsumed, Category::LeakPostDominance, Category::OwnedParameterWithoutLifetimeEnd];
        prop_assert!(!cats.is_empty() && cats.iter().all(|c| leak.contains(c)), "{:?} after dropping line {}:\n{}", cats, k, m.join("\n"));
    }

    #[test]
    fn duplicating_a_consume_is_an_over_consume(seed in any::<u64>(), steps in 1usize..24, pick in any::<usize>()) {
        let body = generate(seed, steps);
        let destroys: Vec<usize> = body.iter().enumerate().filter(|(_, l)| l.contains("destroy_value")).map(|(k, _)| k).collect();
        let k = destroys[pick % destroys.len()];
        let mut m = body.clone();
        m.insert(k, body[k].clone());
        let cats = categories(&m);
        prop_assert!(cats.contains(&Category::OverConsume), "{:?}:\n{}", cats, m.join("\n"));
    }

    #[test]
    fn moving_an_end_borrow_above_a_use_is_an_outside_of_lifetime_use(seed in any::<u64>(), steps in 1usize..24, pick in any::<usize>()) {
        let body = generate(seed, steps);
        let ends: Vec<usize> = body.iter().enumerate().filter(|(_, l)| l.contains("end_borrow")).map(|(k, _)| k).collect();
        prop_assume!(!ends.is_empty());
        let k = ends[pick % ends.len()];
        let mut m = body.clone();
        m.swap(k, k - 1); // the apply of the borrow is the line above
        let cats = categories(&m);
        prop_assert_eq!(cats, vec![Category::OutsideOfLifetimeUse], "{}", m.join("\n"));
    }
}
