//! A drawing as a file that looks the same outside the page: the painted SVG plus the graph
//! rules of static/css/graph.css, with the theme's colours written in, and a background.
//! (The browser side — download, PNG through a canvas — is in `web.rs`.)

/// The part of graph.css that styles the drawing itself (between the export markers).
pub fn export_css() -> &'static str {
    const CSS: &str = include_str!("../../../static/css/graph.css");
    let start = CSS.find("/* export:begin */").map_or(0, |i| i + "/* export:begin */".len());
    let end = CSS.find("/* export:end */").filter(|&e| e >= start).unwrap_or(start);
    CSS[start..end].trim()
}

/// The CSS variables the drawing's rules use (`--g-…`), each once, in order of first use.
pub fn css_variables() -> Vec<&'static str> {
    let css = export_css();
    let mut names: Vec<&'static str> = Vec::new();
    for (i, _) in css.match_indices("var(--") {
        let rest = &css[i + 4..];
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).unwrap_or(rest.len());
        let name = &rest[..end];
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// A colour value safe to write into a stylesheet (what `getComputedStyle` gives: `#fff`,
/// `rgb(1, 2, 3)`, a name); anything else is dropped.
fn safe_value(v: &str) -> Option<&str> {
    let v = v.trim();
    let ok = !v.is_empty() && v.len() < 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || " #(),.%-/".contains(c));
    ok.then_some(v)
}

/// The numbers of the `viewBox` attribute of the first tag.
fn view_box(svg: &str) -> Option<[f64; 4]> {
    let head = &svg[..svg.find('>')?];
    let at = head.find("viewBox=\"")? + 9;
    let vals: Vec<f64> = head[at..].split('"').next()?.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    vals.try_into().ok()
}

/// `svg` (from [`super::paint()`]) as a standalone SVG file: an XML prolog, a `<style>` with
/// the drawing's rules and `vars` (variable name → colour) defined on the root, and a
/// background rectangle. Returns `svg` unchanged (with the prolog) if it is not an `<svg>`.
pub fn standalone_svg(svg: &str, vars: &[(String, String)]) -> String {
    let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    let Some(open_end) = svg.starts_with("<svg").then(|| svg.find('>')).flatten() else {
        return format!("{prolog}{svg}");
    };
    let mut style = String::from("svg.optlab-graph{");
    for (name, value) in vars {
        let name_ok = name.starts_with("--") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if let (true, Some(v)) = (name_ok, safe_value(value)) {
            style.push_str(&format!("{name}:{v};"));
        }
    }
    style.push('}');
    style.push_str(export_css());
    let bg = match view_box(svg) {
        Some([x, y, w, h]) => {
            format!(r##"<rect class="export-bg" x="{x}" y="{y}" width="{w}" height="{h}" fill="#fff"/>"##)
        }
        None => String::new(),
    };
    // The rules contain `>`; CDATA keeps them valid XML whatever they hold.
    format!("{prolog}{}<style><![CDATA[{style}]]></style>{bg}{}", &svg[..=open_end], &svg[open_end + 1..])
}

/// A file name from a title: letters, digits, `-` and `_` kept, the rest `-`.
pub fn file_name(title: &str, ext: &str) -> String {
    let stem: String =
        title.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' }).collect();
    let stem = stem.trim_matches('-');
    format!("{}.{ext}", if stem.is_empty() { "graph" } else { stem })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::diamond;
    use crate::graph::{layout, paint, Decor, Style};

    #[test]
    fn the_export_rules_are_the_drawing_rules_of_graph_css() {
        let css = export_css();
        assert!(css.starts_with("svg.optlab-graph") && !css.contains("export:"), "{css}");
        assert!(css.contains(".node.split > rect.box") && !css.contains(".graph-view"));
        let vars = css_variables();
        for v in ["--g-node-bg", "--g-true", "--g-false", "--g-split", "--g-bg"] {
            assert!(vars.contains(&v), "{v} in {vars:?}");
        }
        let mut sorted = vars.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), vars.len());
    }

    #[test]
    fn a_standalone_svg_carries_its_styles_colours_and_background() {
        let g = diamond();
        let style = Style::default();
        let svg = paint(&g, &layout(&g, &style), &style, &Decor::new());
        let vars = vec![
            ("--g-node-bg".to_string(), " rgb(29, 35, 42) ".to_string()),
            ("--g-true".to_string(), "#3fb950".to_string()),
            ("--g-evil".to_string(), "red}</style><script>".to_string()),
            ("not-a-var".to_string(), "red".to_string()),
        ];
        let out = standalone_svg(&svg, &vars);
        assert!(out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
        assert!(out.contains("svg.optlab-graph{--g-node-bg:rgb(29, 35, 42);--g-true:#3fb950;}"), "{}", &out[..400]);
        assert!(!out.contains("<script>") && !out.contains("not-a-var"));
        assert!(out.contains(export_css()));
        let vb = view_box(&svg).unwrap();
        assert!(out.contains(&format!(
            r#"<rect class="export-bg" x="{}" y="{}" width="{}" height="{}""#,
            vb[0], vb[1], vb[2], vb[3]
        )));
        // The background comes before the drawing, so it is painted under it.
        assert!(out.find("export-bg").unwrap() < out.find("<g class=\"edges\"").unwrap());
        assert!(out.ends_with("</svg>"));
        assert_eq!(standalone_svg("oops", &[]), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\noops");
    }

    #[test]
    fn file_names_are_tame() {
        assert_eq!(file_name("CFG of @main", "svg"), "CFG-of--main.svg");
        assert_eq!(file_name("", "png"), "graph.png");
        assert_eq!(file_name("../x", "svg"), "x.svg");
    }
}
