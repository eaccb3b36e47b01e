//! The state as a permalink [`Snapshot`] and back. A link records what is on the screen —
//! program, function, view, step, selection, theme, modes — by names that survive edits
//! (block and expression names, not ids that a new parse may renumber).

use super::{Doc, Pass, State, Tab, Theme};
use crate::app::lang_slug;
use crate::permalink::{Flags, Snapshot, VERSION};
use optlab_core::{InstId, Lang};

impl State {
    /// What a link to this screen holds.
    pub fn snapshot(&self) -> Snapshot {
        let step = self.step(self.tab);
        Snapshot {
            v: VERSION,
            src: self.doc.source.to_string(),
            lang: lang_slug(self.doc.lang).to_string(),
            file: Some(self.doc.file.to_string()),
            func: self.function.clone(),
            view: Some(self.tab.slug().to_string()),
            pass: (self.pass != Pass::default()).then(|| self.pass.slug().to_string()),
            step: (step > 0).then(|| u32::try_from(step).unwrap_or(u32::MAX)),
            expr: self.expr.as_ref().map(|e| e.to_string()),
            block: self.block.as_ref().map(|b| b.to_string()),
            inst: self.inst.map(|i| i.0),
            theme: self.theme.map(|t| t.as_str().to_string()),
            lecture: self.lecture,
            embed: self.embed,
            exercise: self.exercise,
        }
    }

    /// The screen a link describes. Values this build does not know are ignored (a link
    /// from a newer build still opens its program); the user's own text is stashed.
    pub(super) fn restored(&self, snap: &Snapshot) -> State {
        let lang = match snap.lang.as_str() {
            "sil" => Some(Lang::Sil),
            "bril" => Some(Lang::Bril),
            _ => None,
        };
        let file = snap.file.clone().unwrap_or_else(|| format!("link.{}", lang.map_or("txt", lang_slug)));
        let mut doc = Doc::new(&snap.src, lang.unwrap_or(self.doc.lang), &file);
        doc.lang_auto = lang.is_none();
        doc.from_link = true;
        let mut s = self.clone();
        s.function = snap.func.clone();
        s.program = None;
        s.cursors = Default::default();
        let mut s = s.apply(super::Action::OpenDoc(doc));
        if let Some(tab) = snap.view.as_deref().and_then(Tab::from_slug) {
            s.tab = tab;
        }
        if let Some(p) = snap.pass.as_deref().and_then(Pass::from_slug) {
            s.pass = p;
        }
        s.expr = snap.expr.clone().map(Into::into);
        s.block = snap.block.clone().map(Into::into);
        s.inst = snap.inst.map(InstId);
        if let Some(t) = snap.theme.as_deref().and_then(Theme::parse) {
            s.theme = Some(t);
        }
        s.lecture = snap.lecture;
        s.embed = snap.embed;
        s.exercise = snap.exercise;
        if let Some(k) = snap.step {
            s.set_step(s.tab, k as usize);
        }
        s
    }

    pub(super) fn set_flags(&mut self, flags: &Flags) {
        self.lecture |= flags.lecture;
        self.exercise |= flags.exercise;
        self.embed |= flags.embed;
        if let Some(tab) = flags.view.as_deref().and_then(Tab::from_slug) {
            self.tab = tab;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Action, StepCmd};
    use super::*;
    use crate::permalink::{decode, encode};

    #[test]
    fn a_screen_survives_a_link_round_trip() {
        let s = State::default()
            .apply(Action::SelectTab(Tab::Dce))
            .apply(Action::Step(StepCmd::Next))
            .apply(Action::Step(StepCmd::Next))
            .apply(Action::SelectBlock(Some("loop".into())))
            .apply(Action::SetTheme(Some(Theme::Dark)))
            .apply(Action::SetLecture(true));
        let link = encode(&s.snapshot()).expect("encodes");
        let snap = decode(&link).expect("decodes");
        let fresh = State::new(Doc::new("@main {\n  ret;\n}\n", Lang::Bril, "mine.bril"));
        let t = fresh.apply(Action::Restore(Box::new(snap)));
        assert_eq!(t.doc.source, s.doc.source);
        assert_eq!(t.tab, Tab::Dce);
        assert_eq!(t.step(Tab::Dce), 2);
        assert_eq!(t.block.as_deref(), Some("loop"));
        assert_eq!(t.theme, Some(Theme::Dark));
        assert!(t.lecture);
        assert_eq!(t.snapshot(), s.snapshot(), "the restored screen links to itself");
        assert_eq!(t.stash.as_ref().map(|d| d.file.as_str()), Some("mine.bril"), "the user's text is kept");
    }

    #[test]
    fn unknown_values_in_a_link_are_ignored() {
        let mut snap = Snapshot::new("@f {\n  ret;\n}\n", "cobol");
        snap.view = Some("hologram".into());
        snap.theme = Some("neon".into());
        snap.func = Some("nope".into());
        snap.step = Some(u32::MAX);
        let t = State::default().apply(Action::Restore(Box::new(snap)));
        assert_eq!(t.tab, Tab::Cfg);
        assert_eq!(t.theme, None);
        assert_eq!(t.doc.lang, Lang::Bril, "detected from the text");
        assert_eq!(t.function.as_deref(), Some("f"));
    }

    #[test]
    fn flags_switch_modes_and_views() {
        let mut s = State::default();
        s.set_flags(&Flags { embed: true, view: Some("lcm".into()), ..Flags::default() });
        assert!(s.embed && !s.lecture);
        assert_eq!(s.tab, Tab::Lcm);
    }
}
