use super::*;
use crate::parse::sil::parse;

fn corpus() -> Option<String> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/swift/address_lowering.sil");
    std::fs::read_to_string(p).ok()
}

#[test]
fn dump_corpus() {
    let Some(text) = corpus() else { return };
    let m = parse("address_lowering.sil", &text).unwrap();
    let (out, report) = lower_module(&m);
    for (n, r) in &report {
        match r {
            Ok(k) => eprintln!("OK {n} ({k} opaque)"),
            Err(e) => eprintln!("NO {n}: {}", e.message.lines().next().unwrap_or("")),
        }
    }
    if std::env::var("DUMP").is_ok() {
        eprintln!("{}", crate::print::print_module(&out, crate::print::Naming::Renumber));
    }
}
