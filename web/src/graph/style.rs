//! Sizes of the drawing. Colours are not here: they come from CSS classes (static/css/graph.css),
//! so themes and exports restyle a drawing without painting it again.

use super::Node;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Style {
    /// Code font size in px.
    pub font_size: f64,
    /// Width of one monospace character as a fraction of the font size.
    pub char_width: f64,
    /// Line height as a fraction of the font size.
    pub line_height: f64,
    /// Padding inside a box, px.
    pub padding: f64,
    /// Margin around the cropped drawing, px.
    pub margin: f64,
    /// Room kept free above and below every box for entry/exit badges, px (0: none). The
    /// layout places boxes this much further apart, so badges never cover a neighbour; edges
    /// end at the band and a short stub joins them to the box.
    pub badge_band: f64,
    /// Prefix for ids inside the SVG (arrow markers), so several SVGs can share a page.
    pub id_prefix: String,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            font_size: 13.0,
            char_width: 0.62,
            line_height: 1.3,
            padding: 6.0,
            margin: 6.0,
            badge_band: 0.0,
            id_prefix: "g".to_string(),
        }
    }
}

impl Style {
    /// The default style with room for one row of badges above and below each box (the LCM
    /// view's predicate bits).
    pub fn with_badges() -> Style {
        let s = Style::default();
        Style { badge_band: (s.badge_font_size() * 1.6 + 4.0).ceil(), ..s }
    }

    /// Font size of edge labels, px (a whole number: layout-rs sizes label boxes by it).
    pub fn label_font_size(&self) -> f64 {
        (self.font_size * 0.85).round()
    }

    /// Font size of badge text, px.
    pub fn badge_font_size(&self) -> f64 {
        (self.font_size * 0.8).round()
    }

    /// Height of one code row, px.
    pub fn row_height(&self) -> f64 {
        self.line_height * self.font_size
    }

    /// The box size for a node's text (the badge band not included).
    pub fn box_size(&self, node: &Node) -> (f64, f64) {
        let chars = node
            .lines
            .iter()
            .map(|l| l.chars().count())
            .chain(std::iter::once(node.title.chars().count()))
            .max()
            .unwrap_or(0)
            .max(2);
        let rows = 1 + node.lines.len();
        let w = chars as f64 * self.char_width * self.font_size + 2.0 * self.padding;
        let h = rows as f64 * self.row_height() + 2.0 * self.padding;
        (w.ceil(), h.ceil())
    }

    /// The fields that move things in a layout, as bits (floats do not hash).
    pub(crate) fn layout_bits(&self) -> [u64; 6] {
        [
            self.font_size.to_bits(),
            self.char_width.to_bits(),
            self.line_height.to_bits(),
            self.padding.to_bits(),
            self.margin.to_bits(),
            self.badge_band.to_bits(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_fit_their_longest_line_and_every_row() {
        let style = Style::default();
        let n = Node::new("b", "b", vec!["x".repeat(40), "y".into()]);
        let (w, h) = style.box_size(&n);
        assert!(w >= 40.0 * 0.6 * style.font_size, "{w}");
        assert!(h >= 3.0 * style.font_size, "{h}");
        let title_only = Node::new("a-long-title", "a-long-title", vec![]);
        let (w2, h2) = style.box_size(&title_only);
        assert!(w2 >= 12.0 * 0.6 * style.font_size && h2 < h, "{w2} {h2}");
    }

    #[test]
    fn badge_style_keeps_room_for_a_badge() {
        let s = Style::with_badges();
        assert!(s.badge_band > s.badge_font_size(), "{}", s.badge_band);
        assert_eq!(Style::default().badge_band, 0.0);
    }
}
