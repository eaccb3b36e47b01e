//! Pan and zoom of a drawing inside its container, as plain arithmetic (GraphView keeps one
//! per component and writes it as a CSS transform).

/// Screen position of the drawing's top-left corner (px, relative to the container) and scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f64,
    pub y: f64,
    pub k: f64,
}

pub const MIN_SCALE: f64 = 0.05;
pub const MAX_SCALE: f64 = 4.0;
/// Below this a first view of a large graph is unreadable: start here and let the user zoom out.
const READABLE: f64 = 0.6;
const PAD: f64 = 8.0;
/// Room kept free at the top for GraphView's toolbar.
const TOP: f64 = 40.0;

impl Default for Viewport {
    fn default() -> Viewport {
        Viewport { x: 0.0, y: 0.0, k: 1.0 }
    }
}

fn clamp_scale(k: f64) -> f64 {
    if k.is_finite() {
        k.clamp(MIN_SCALE, MAX_SCALE)
    } else {
        1.0
    }
}

/// Centres `len` (already scaled) in the `room` between `start` and `end` insets, or aligns it
/// to the start when it does not fit.
fn place(len: f64, room: f64, start: f64, end: f64) -> f64 {
    let free = room - start - end;
    if len <= free {
        start + (free - len) / 2.0
    } else {
        start
    }
}

impl Viewport {
    /// The whole drawing (`content` w × h) in the container (`room` w × h), below the toolbar,
    /// at most 1:1 so small graphs keep their natural size.
    pub fn fit(content: (f64, f64), room: (f64, f64)) -> Viewport {
        let (w, h) = (content.0.max(1.0), content.1.max(1.0));
        let k = clamp_scale(((room.0 - 2.0 * PAD) / w).min((room.1 - TOP - PAD) / h).min(1.0));
        Viewport { x: place(w * k, room.0, PAD, PAD), y: place(h * k, room.1, TOP, PAD), k }
    }

    /// The first view of a new graph: [`Viewport::fit`], but never below a readable scale; a
    /// large graph starts at its top with the entry (at `entry_x` across the drawing, in its
    /// own units) centred.
    pub fn initial(content: (f64, f64), room: (f64, f64), entry_x: f64) -> Viewport {
        let fit = Viewport::fit(content, room);
        if fit.k >= READABLE {
            return fit;
        }
        let k = READABLE;
        let w = content.0.max(1.0) * k;
        // Centred on the entry, but not past the drawing's edges when it is wider than the room.
        let x =
            if w <= room.0 { (room.0 - w) / 2.0 } else { (room.0 / 2.0 - entry_x * k).clamp(room.0 - w - PAD, PAD) };
        Viewport { x, y: TOP, k }
    }

    /// Zoomed by `factor`, keeping the container point `at` over the same spot of the drawing.
    pub fn zoom_at(self, factor: f64, at: (f64, f64)) -> Viewport {
        let k = clamp_scale(self.k * if factor.is_finite() && factor > 0.0 { factor } else { 1.0 });
        let r = k / self.k;
        Viewport { x: at.0 - (at.0 - self.x) * r, y: at.1 - (at.1 - self.y) * r, k }
    }

    pub fn pan(self, dx: f64, dy: f64) -> Viewport {
        if !(dx.is_finite() && dy.is_finite()) {
            return self;
        }
        Viewport { x: self.x + dx, y: self.y + dy, ..self }
    }

    /// The zoom factor for a wheel movement (`deltaY` in px; negative zooms in).
    pub fn wheel_factor(delta_y: f64) -> f64 {
        (-delta_y.clamp(-300.0, 300.0) * 0.002).exp()
    }

    /// The CSS `transform` (with `transform-origin: 0 0`).
    pub fn css(&self) -> String {
        format!("transform: translate({:.1}px, {:.1}px) scale({:.4});", self.x, self.y, self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_shows_everything_below_the_toolbar_and_never_enlarges() {
        let v = Viewport::fit((2000.0, 1000.0), (500.0, 500.0));
        assert!(v.k * 2000.0 <= 500.0 - 2.0 * PAD + 1e-9 && v.k * 2000.0 > 450.0, "{v:?}");
        assert!(v.y >= TOP && v.y + 1000.0 * v.k <= 500.0, "{v:?}");
        let small = Viewport::fit((100.0, 50.0), (500.0, 500.0));
        assert_eq!(small.k, 1.0);
        assert_eq!((small.x, small.y), (200.0, TOP + (500.0 - TOP - PAD - 50.0) / 2.0));
        let tiny_room = Viewport::fit((1e6, 1e6), (10.0, 10.0));
        assert_eq!(tiny_room.k, MIN_SCALE);
    }

    #[test]
    fn a_large_graph_starts_readable_at_its_top_around_the_entry() {
        // Narrower than the room: centred.
        let v = Viewport::initial((600.0, 20000.0), (800.0, 600.0), 100.0);
        assert_eq!((v.k, v.y), (READABLE, TOP));
        assert!((v.x + 300.0 * READABLE - 400.0).abs() < 1e-9, "centred across: {v:?}");
        // Wider than the room: the entry in the middle...
        let wide = Viewport::initial((4000.0, 20000.0), (800.0, 600.0), 2000.0);
        assert!((wide.x + 2000.0 * READABLE - 400.0).abs() < 1e-9, "{wide:?}");
        // ...unless that would show empty space past the drawing's left edge.
        let left = Viewport::initial((4000.0, 20000.0), (800.0, 600.0), 10.0);
        assert_eq!(left.x, PAD);
        let right = Viewport::initial((4000.0, 20000.0), (800.0, 600.0), 3990.0);
        assert!((right.x - (800.0 - 4000.0 * READABLE - PAD)).abs() < 1e-9, "{right:?}");
        assert_eq!(
            Viewport::initial((100.0, 50.0), (500.0, 500.0), 50.0),
            Viewport::fit((100.0, 50.0), (500.0, 500.0))
        );
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let v = Viewport { x: 10.0, y: 20.0, k: 1.0 };
        let at = (110.0, 70.0);
        let z = v.zoom_at(2.0, at);
        assert_eq!(z.k, 2.0);
        // The drawing point under the cursor before ((at - offset) / k) is still under it.
        let before = ((at.0 - v.x) / v.k, (at.1 - v.y) / v.k);
        let after = ((at.0 - z.x) / z.k, (at.1 - z.y) / z.k);
        assert!((before.0 - after.0).abs() < 1e-9 && (before.1 - after.1).abs() < 1e-9);
        assert_eq!(v.zoom_at(1e9, at).k, MAX_SCALE);
        assert_eq!(v.zoom_at(f64::NAN, at), v);
        assert_eq!(v.zoom_at(-1.0, at), v);
    }

    #[test]
    fn pan_and_wheel() {
        let v = Viewport::default().pan(5.0, -3.0);
        assert_eq!((v.x, v.y, v.k), (5.0, -3.0, 1.0));
        assert_eq!(v.pan(f64::INFINITY, 0.0), v);
        assert!(Viewport::wheel_factor(-100.0) > 1.0 && Viewport::wheel_factor(100.0) < 1.0);
        assert_eq!(Viewport::wheel_factor(1e9), Viewport::wheel_factor(300.0));
        assert_eq!(v.css(), "transform: translate(5.0px, -3.0px) scale(1.0000);");
    }
}
