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
pub const READABLE: f64 = 0.6;
const PAD: f64 = 8.0;
/// Room kept free at the top for GraphView's toolbar.
const TOP: f64 = 40.0;

/// How large a drawing's first view may be: lecture mode never shrinks code below a size read
/// from the back of a room, embed mode fits the whole drawing to its frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub min: f64,
    pub max: f64,
}

impl Fit {
    /// The normal page: small graphs at their natural size, large ones not below [`READABLE`].
    pub const NORMAL: Fit = Fit { min: READABLE, max: 1.0 };
    /// An iframe: the whole drawing, as large as its frame allows (up to twice its size).
    pub const EMBED: Fit = Fit { min: MIN_SCALE, max: 2.0 };

    /// Lecture mode: code at least `px` on screen for a drawing whose code is `font_px`.
    pub fn lecture(px: f64, font_px: f64) -> Fit {
        // A hair over: the transform is written with four decimals.
        let min = if font_px > 0.0 { px / font_px + 1e-4 } else { 1.0 };
        Fit { min, max: min.max(2.0) }
    }
}

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

    /// The first view of a drawing under a [`Fit`] policy: the whole drawing at the largest
    /// scale the policy allows; when even its smallest scale does not show everything, the
    /// drawing at that scale centred on `focus` (a point of the drawing, in its own px: the
    /// current step's blocks, or the entry at the top), without showing empty space past the
    /// drawing's edges.
    pub fn fitted(content: (f64, f64), room: (f64, f64), fit: Fit, focus: (f64, f64)) -> Viewport {
        let (w, h) = (content.0.max(1.0), content.1.max(1.0));
        let (rw, rh) = ((room.0 - 2.0 * PAD).max(1.0), (room.1 - TOP - PAD).max(1.0));
        let whole = (rw / w).min(rh / h);
        let k = clamp_scale(whole.min(fit.max).max(fit.min));
        let axis = |len: f64, room: f64, start: f64, end: f64, at: f64| {
            let free = room - start - end;
            if len <= free {
                start + (free - len) / 2.0
            } else {
                // Centre `at`, clamped so the drawing covers the room.
                (start + free / 2.0 - at).clamp(room - end - len, start)
            }
        };
        Viewport {
            x: axis(w * k, room.0, PAD, PAD, focus.0 * k),
            y: axis(h * k, room.1, TOP, PAD, focus.1 * k),
            k,
        }
    }

    /// The same view in a container resized from `old` to `new` (w × h): the scale kept, the
    /// drawing point at the old centre moved to the new centre.
    pub fn recentred(self, old: (f64, f64), new: (f64, f64)) -> Viewport {
        let (dx, dy) = ((new.0 - old.0) / 2.0, (new.1 - old.1) / 2.0);
        self.pan(dx, dy)
    }

    /// Whether the drawing's rectangle `r` (x, y, w, h in drawing px) is entirely on screen in
    /// a container of `room`.
    pub fn shows(&self, r: (f64, f64, f64, f64), room: (f64, f64)) -> bool {
        let (x0, y0) = (self.x + r.0 * self.k, self.y + r.1 * self.k);
        let (x1, y1) = (x0 + r.2 * self.k, y0 + r.3 * self.k);
        x0 >= 0.0 && y0 >= 0.0 && x1 <= room.0 && y1 <= room.1
    }

    /// Panned by the least amount that brings the drawing's rectangle `r` on screen (below the
    /// toolbar), or, if it is larger than the room, its top left corner (where a reader starts).
    pub fn reveal(self, r: (f64, f64, f64, f64), room: (f64, f64)) -> Viewport {
        let axis = |pos: f64, at: f64, len: f64, room: f64, start: f64| {
            let (a, b) = (pos + at * self.k, pos + (at + len) * self.k);
            let (lo, hi) = (start, room - PAD);
            if b - a > hi - lo || a < lo {
                pos + lo - a
            } else if b > hi {
                pos - (b - hi)
            } else {
                pos
            }
        };
        Viewport { x: axis(self.x, r.0, r.2, room.0, PAD), y: axis(self.y, r.1, r.3, room.1, TOP), k: self.k }
    }

    /// Panned so the drawing's rectangle `r` is in the middle of the room (below the toolbar),
    /// or, on an axis where it is larger than the room, its start at the room's start: where a
    /// step's highlighted blocks go, with their neighbours around them.
    pub fn centre_on(self, r: (f64, f64, f64, f64), room: (f64, f64)) -> Viewport {
        let axis = |pos: f64, at: f64, len: f64, room: f64, start: f64| {
            let (a, b) = (pos + at * self.k, pos + (at + len) * self.k);
            let (lo, hi) = (start, room - PAD);
            if b - a > hi - lo {
                pos + lo - a
            } else {
                pos + (lo + hi) / 2.0 - (a + b) / 2.0
            }
        };
        Viewport { x: axis(self.x, r.0, r.2, room.0, PAD), y: axis(self.y, r.1, r.3, room.1, TOP), k: self.k }
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
    fn fitted_respects_the_policy_and_centres_the_focus() {
        // Small graph, lecture: enlarged to the policy's minimum at least, centred.
        let lec = Fit::lecture(18.0, 13.0);
        let v = Viewport::fitted((100.0, 50.0), (800.0, 600.0), lec, (0.0, 0.0));
        assert!(v.k >= 18.0 / 13.0 - 1e-9 && v.k <= 2.0, "{v:?}");
        // Large graph, lecture: never below the minimum; the focus is centred.
        let big = Viewport::fitted((2000.0, 3000.0), (800.0, 600.0), lec, (1000.0, 1500.0));
        assert!((big.k - lec.min).abs() < 1e-9 && lec.min >= 18.0 / 13.0);
        assert!((big.x + 1000.0 * big.k - 400.0).abs() < 1e-6, "{big:?}");
        // ...but not past the drawing's edges.
        let corner = Viewport::fitted((2000.0, 3000.0), (800.0, 600.0), lec, (0.0, 0.0));
        assert_eq!((corner.x, corner.y), (PAD, TOP));
        // Embed: the whole drawing, even when that means shrinking a lot.
        let e = Viewport::fitted((2000.0, 3000.0), (600.0, 400.0), Fit::EMBED, (0.0, 0.0));
        assert!(e.y + 3000.0 * e.k <= 400.0 + 1e-9 && e.k < 0.2, "{e:?}");
        // Normal: like fit for small graphs.
        assert_eq!(
            Viewport::fitted((100.0, 50.0), (500.0, 500.0), Fit::NORMAL, (0.0, 0.0)),
            Viewport::fit((100.0, 50.0), (500.0, 500.0))
        );
    }

    #[test]
    fn resizing_keeps_the_scale_and_the_centre() {
        let v = Viewport { x: 10.0, y: 20.0, k: 1.5 };
        let r = v.recentred((1000.0, 800.0), (600.0, 800.0));
        assert_eq!(r.k, 1.5);
        let centre = |v: Viewport, room: (f64, f64)| ((room.0 / 2.0 - v.x) / v.k, (room.1 / 2.0 - v.y) / v.k);
        let (a, b) = (centre(v, (1000.0, 800.0)), centre(r, (600.0, 800.0)));
        assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9);
    }

    #[test]
    fn reveal_pans_the_least() {
        let v = Viewport { x: 0.0, y: TOP, k: 1.0 };
        let room = (400.0, 300.0);
        assert!(v.shows((10.0, 10.0, 50.0, 20.0), room));
        let r = v.reveal((500.0, 10.0, 50.0, 20.0), room);
        assert!(r.shows((500.0, 10.0, 50.0, 20.0), room), "{r:?}");
        assert_eq!(r.y, v.y);
        assert_eq!(v.reveal((10.0, 10.0, 50.0, 20.0), room), v);
        let c = v.centre_on((500.0, 10.0, 50.0, 20.0), room);
        assert!(c.shows((500.0, 10.0, 50.0, 20.0), room));
        assert!((c.x + 525.0 - 200.0).abs() < 1e-9 && (c.y + 20.0 - (TOP + 300.0 - PAD) / 2.0).abs() < 1e-9, "{c:?}");
        assert_eq!(v.centre_on((100.0, 500.0, 1000.0, 1000.0), room).y, TOP - 500.0);
        // Larger than the room: its top left corner in view.
        let big = v.reveal((100.0, 500.0, 1000.0, 1000.0), room);
        assert_eq!((big.x, big.y), (PAD - 100.0, TOP - 500.0));
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
