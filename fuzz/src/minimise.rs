//! Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing
//! Input", 2002): `ddmin` over lines, then over characters, keeping every reduction after
//! which the input still fails the same way. Bounded by a number of trials, because each
//! trial runs every stage (and a slow input costs a second a trial).

/// Removes chunks of `units` while `fails` holds for the joined rest; returns what is left.
fn ddmin(units: Vec<String>, join: &str, fails: &mut dyn FnMut(&str) -> bool, budget: &mut usize) -> Vec<String> {
    let mut units = units;
    let mut n = 2usize;
    while units.len() >= 2 && *budget > 0 {
        let chunk = units.len().div_ceil(n);
        let mut reduced = false;
        let mut start = 0;
        while start < units.len() && *budget > 0 {
            let end = (start + chunk).min(units.len());
            let rest: Vec<String> = units[..start].iter().chain(&units[end..]).cloned().collect();
            *budget -= 1;
            if !rest.is_empty() && fails(&rest.join(join)) {
                units = rest;
                reduced = true;
                n = (n - 1).max(2);
                break;
            }
            start = end;
        }
        if !reduced {
            if n >= units.len() {
                break;
            }
            n = (2 * n).min(units.len());
        }
    }
    units
}

/// The smallest input found within `budget` trials that still `fails`.
pub fn minimise(input: &str, budget: usize, fails: &mut dyn FnMut(&str) -> bool) -> String {
    let mut budget = budget;
    let lines: Vec<String> = input.split('\n').map(str::to_string).collect();
    let lines = ddmin(lines, "\n", fails, &mut budget);
    let text = lines.join("\n");
    let chars: Vec<String> = text.chars().map(String::from).collect();
    ddmin(chars, "", fails, &mut budget).concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_two_lines_and_characters_that_matter() {
        let input = (0..200).map(|k| format!("line {k}")).collect::<Vec<_>>().join("\n") + "\nXX\nfoo Y bar";
        let mut fails = |s: &str| s.contains('X') && s.contains('Y');
        let out = minimise(&input, 10_000, &mut fails);
        assert_eq!(out, "XY");
    }

    #[test]
    fn stops_at_the_budget() {
        let input = "a\n".repeat(1000) + "b";
        let mut trials = 0;
        let mut fails = |s: &str| {
            trials += 1;
            s.contains('b')
        };
        let out = minimise(&input, 7, &mut fails);
        assert_eq!(trials, 7);
        assert!(out.contains('b'));
    }
}
