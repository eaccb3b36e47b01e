use optlab_core::parse::sil::parse;
use optlab_core::SourceFile;
#[test]
fn scratch() {
    for f in ["/tmp/silerr/a.sil", "/tmp/silerr/b.sil"] {
        let text = std::fs::read_to_string(f).unwrap();
        match parse("x.sil", &text) {
            Ok(_) => println!("OK?"),
            Err(d) => println!("{}\n-----", d.render(&SourceFile::new("x.sil", text.clone()))),
        }
    }
}
