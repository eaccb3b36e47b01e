//! The state as a permalink [`Snapshot`] and back. A link records what is on the screen —
//! program, function, view, step, selection, theme, modes — by names that survive edits
//! (block and expression names, not ids that a new parse may renumber).

use super::{Doc, State, Tab, Theme};
use optlab_core::passes::pipeline::Pipeline;
use crate::app::lang_slug;
use crate::permalink::{Flags, Snapshot, VERSION};
use optlab_core::{InstId, Lang};

impl State {
    /// What a link to this screen holds.
    pub fn snapshot(&self) -> Snapshot {
        let step = self.step(self.tab);
        #[cfg_attr(feature = "full", allow(unused_mut))]
        let mut snap = Snapshot {
            v: VERSION,
            src: self.doc.source.to_string(),
            lang: lang_slug(self.doc.lang).to_string(),
            file: Some(self.doc.file.to_string()),
            func: self.function.clone(),
            view: Some(self.tab.slug().to_string()),
            pass: None,
            pipe: (self.pipeline != crate::build::default_pipeline()).then(|| self.pipeline.to_string()),
            stages: (self.stages != (0, usize::MAX)).then(|| {
                let (a, b) = self.compared_stages();
                [a, b].map(|k| u32::try_from(k).unwrap_or(u32::MAX))
            }),
            step: (step > 0).then(|| u32::try_from(step).unwrap_or(u32::MAX)),
            expr: self.expr.as_ref().map(|e| e.to_string()),
            block: self.block.as_ref().map(|b| b.to_string()),
            inst: self.inst.map(|i| i.0),
            theme: self.theme.map(|t| t.as_str().to_string()),
            lecture: self.lecture,
            embed: self.embed,
            exercise: self.exercise,
            ty: self.types.row.as_ref().map(|t| t.to_string()),
            whatif: self.types.assume.subst.clone(),
            resilient: self.types.assume.resilient.iter().cloned().collect(),
            opaque: self.types.assume.opaque_values,
            val: self.value.as_ref().map(|v| v.to_string()),
        };
        // The first-visit build's links keep what the link it opened said about passes.
        #[cfg(not(feature = "full"))]
        crate::handoff::complete_snapshot(self, &mut snap);
        snap
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
        // The assumptions before the program is analysed, so it is analysed once, under them.
        s.types = super::TypesUi {
            row: snap.ty.clone().map(Into::into),
            assume: optlab_core::sil::types::Assumptions {
                resilient: snap.resilient.iter().cloned().collect(),
                subst: snap.whatif.clone(),
                opaque_values: snap.opaque,
            },
        };
        s.reveal = None;
        let mut s = s.apply(super::Action::OpenDoc(doc));
        if let Some(tab) = snap.view.as_deref().and_then(Tab::from_slug) {
            s.tab = tab;
        }
        // A pipeline this build cannot read (a pass it does not have) keeps the default.
        let pipe = snap.pipe.as_deref().or(snap.pass.as_deref());
        #[cfg(not(feature = "full"))]
        crate::handoff::remember_link(snap);
        #[cfg(feature = "full")]
        if let Some(p) = pipe.and_then(|p| Pipeline::parse(p).ok()) {
            s = s.apply(super::Action::SetPipeline(p));
        }
        if let Some([a, b]) = snap.stages {
            s.stages = (a as usize, b as usize);
        }
        s.expr = snap.expr.clone().map(Into::into);
        s.block = snap.block.clone().map(Into::into);
        s.inst = snap.inst.map(InstId);
        s.value = snap.val.clone().map(Into::into);
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
            .apply(Action::SelectTab(Tab::pass("dce")))
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
        assert_eq!(t.tab, Tab::pass("dce"));
        assert_eq!(t.step(Tab::pass("dce")), 2);
        assert_eq!(t.block.as_deref(), Some("loop"));
        assert_eq!(t.theme, Some(Theme::Dark));
        assert!(t.lecture);
        assert_eq!(t.snapshot(), s.snapshot(), "the restored screen links to itself");
        assert_eq!(t.stash.as_ref().map(|d| d.file.as_str()), Some("mine.bril"), "the user's text is kept");
    }

    #[test]
    fn the_pipeline_and_its_stages_survive_a_link_and_old_links_name_one_pass() {
        let s = State::default()
            .apply(Action::SelectTab(Tab::DIFF))
            .apply(Action::SetPipeline(Pipeline::parse("lcm,dce").unwrap()))
            .apply(Action::AddPass("copyprop".into()))
            .apply(Action::SelectStages(1, 2));
        assert_eq!(s.pipeline.to_string(), "lcm,dce,copyprop");
        let snap = decode(&encode(&s.snapshot()).expect("encodes")).expect("decodes");
        assert_eq!(snap.pipe.as_deref(), Some("lcm,dce,copyprop"));
        assert_eq!(snap.stages, Some([1, 2]));
        let t = State::default().apply(Action::Restore(Box::new(snap)));
        assert_eq!(t.pipeline, s.pipeline);
        assert_eq!(t.compared_stages(), (1, 2));
        assert_eq!(t.staged.as_ref().map(|st| st.stage_name(2)), Some("after DCE".to_string()));
        assert_eq!(t.snapshot(), s.snapshot());

        // The default pipeline and stages are not written at all.
        let plain = State::default().snapshot();
        assert_eq!((plain.pipe, plain.stages, plain.pass), (None, None, None));

        // A link from before pipelines: `pass` alone, compared with the input.
        let mut old = Snapshot::new("@main {\n  x: int = const 1;\n  ret;\n}\n", "bril");
        old.pass = Some("lcm".into());
        old.view = Some("diff".into());
        let t = State::default().apply(Action::Restore(Box::new(old)));
        assert_eq!(t.pipeline.to_string(), "lcm");
        assert_eq!(t.compared_stages(), (0, 1));

        // A pipeline naming a pass this build lacks keeps the default.
        let mut odd = Snapshot::new("@main {\n  ret;\n}\n", "bril");
        odd.pipe = Some("lcm,gvn".into());
        let t = State::default().apply(Action::Restore(Box::new(odd)));
        assert_eq!(t.pipeline, Pipeline::default_pipeline());
    }

    #[test]
    fn the_types_view_its_row_and_its_assumptions_survive_a_link() {
        let s = State::default()
            .apply(Action::LoadExample("type-lowering".into()))
            .apply(Action::SelectTab(Tab::TYPES))
            .apply(Action::SetWhatIf { param: "T".into(), ty: Some("Any".into()) })
            .apply(Action::SelectType(Some("*Box<T>".into())))
            .apply(Action::SetResilient { name: "Phantom".into(), on: true })
            .apply(Action::SetOpaqueValues(Some(false)));
        let snap = decode(&encode(&s.snapshot()).expect("encodes")).expect("decodes");
        assert_eq!(snap.view.as_deref(), Some("types"));
        assert_eq!(snap.ty.as_deref(), Some("*Box<T>"));
        assert_eq!(snap.whatif.get("T").map(String::as_str), Some("Any"));
        assert_eq!(snap.resilient, ["Phantom"]);
        let fresh = State::new(Doc::new("@main {\n  ret;\n}\n", Lang::Bril, "mine.bril"));
        let t = fresh.apply(Action::Restore(Box::new(snap)));
        assert_eq!(t.tab, Tab::TYPES);
        assert_eq!(t.types, s.types);
        assert_eq!(t.function.as_deref(), Some("boxes"));
        let a = t.analysis.as_ref().expect("analysed");
        let row = a.types(&a.function).row("*Box<T>").expect("the row");
        assert_eq!(row.verdict.class, optlab_core::sil::types::Class::AddressOnly);
        assert!(row.verdict.why.iter().any(|st| st.source == optlab_core::sil::types::Source::WhatIf), "analysed under the what-if");
        assert_eq!(t.snapshot(), s.snapshot(), "the restored screen links to itself");

        // Without a Types selection nothing about types is written.
        let plain = State::default().snapshot();
        assert!(plain.ty.is_none() && plain.whatif.is_empty() && plain.resilient.is_empty() && plain.opaque.is_none());
    }

    #[test]
    fn unknown_values_in_a_link_are_ignored() {
        let mut snap = Snapshot::new("@f {\n  ret;\n}\n", "cobol");
        snap.view = Some("hologram".into());
        snap.theme = Some("neon".into());
        snap.func = Some("nope".into());
        snap.step = Some(u32::MAX);
        let t = State::default().apply(Action::Restore(Box::new(snap)));
        assert_eq!(t.tab, Tab::CFG);
        assert_eq!(t.theme, None);
        assert_eq!(t.doc.lang, Lang::Bril, "detected from the text");
        assert_eq!(t.function.as_deref(), Some("f"));
    }

    #[test]
    fn flags_switch_modes_and_views() {
        let mut s = State::default();
        s.set_flags(&Flags { embed: true, view: Some("lcm".into()), ..Flags::default() });
        assert!(s.embed && !s.lecture);
        assert_eq!(s.tab, Tab::pass("lcm"));
    }
}
