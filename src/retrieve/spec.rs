//! Retriever specs, parsed once into a [`Spec`]:
//!
//! ```text
//! spec  = union ("|" filter)*        normalised+fuzzy+edit+alias|sense|longest
//! union = name ("+" name)*           a retriever or a composition name
//! ```
//!
//! Every name is checked against the registries when the text is parsed,
//! so a spec that parses names only things that exist; `Display` gives the
//! canonical text back (`" exact + fuzzy | sense "` → `exact+fuzzy|sense`).

use super::case::CaseFilter;
use super::shared::{self, SharedTiers};
use super::{
    union, BuildError, Composition, Filter, FilterInfo, Params, Retriever, RetrieverInfo,
    COMPOSITIONS, FILTERS, REGISTRY,
};
use crate::glossary::Glossary;
use rayon::prelude::*;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// How deep compositions may name compositions (a guard against a
/// composition that names itself).
const MAX_NESTING: usize = 4;

/// One name of a spec's union.
#[derive(Clone, Copy)]
pub enum Part {
    Retriever(&'static RetrieverInfo),
    /// A named composition, built as its own spec (filters included).
    Composition(&'static Composition),
}

impl Part {
    /// The registered name.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Part::Retriever(info) => info.name,
            Part::Composition(c) => c.name,
        }
    }

    fn find(name: &str) -> Option<Part> {
        let retriever = REGISTRY.iter().find(|info| info.name == name);
        let composition = || COMPOSITIONS.iter().find(|c| c.name == name);
        retriever
            .map(Part::Retriever)
            .or_else(|| composition().map(Part::Composition))
    }
}

impl fmt::Debug for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for Part {
    // Names are unique in the registries.
    fn eq(&self, other: &Part) -> bool {
        self.name() == other.name()
    }
}

/// A parsed retriever spec: the union's parts, then the filters applied
/// to its matches left to right.
#[derive(Clone)]
pub struct Spec {
    pub(crate) union: Vec<Part>,
    pub(crate) filters: Vec<&'static FilterInfo>,
}

impl Spec {
    /// Parse `text`; the error names the first unknown or empty name.
    pub(crate) fn parse(text: &str) -> Result<Spec, UnknownRetriever> {
        let mut pieces = text.split('|');
        let union = pieces
            .next()
            .unwrap_or_default()
            .split('+')
            .map(str::trim)
            .map(|name| Part::find(name).ok_or_else(|| UnknownRetriever::retriever(text, name)))
            .collect::<Result<_, _>>()?;
        let filters = pieces
            .map(str::trim)
            .map(|name| {
                FILTERS
                    .iter()
                    .find(|info| info.name == name)
                    .ok_or_else(|| UnknownRetriever::filter(text, name))
            })
            .collect::<Result<_, _>>()?;
        Ok(Spec { union, filters })
    }

    /// Build the retriever: the union's parts (their indexes side by side),
    /// then the filters. The first part or filter that cannot be built
    /// says why.
    pub(crate) fn build(
        &self,
        glossary: &Arc<Glossary>,
        params: &Params,
    ) -> Result<Box<dyn Retriever>, BuildError> {
        self.build_nested(glossary, params, 0)
    }

    fn build_nested(
        &self,
        glossary: &Arc<Glossary>,
        params: &Params,
        depth: usize,
    ) -> Result<Box<dyn Retriever>, BuildError> {
        let names: Vec<&str> = self.union.iter().map(Part::name).collect();
        let inner: Box<dyn Retriever> = if shared::applies(&names) {
            Box::new(self.build_shared(glossary, params, depth)?)
        } else {
            let mut parts = self.build_parts(&self.union, glossary, params, depth)?;
            if parts.len() == 1 {
                parts.pop().expect("one part")
            } else {
                Box::new(union::Union::new(parts))
            }
        };
        // Case-sensitive entries are held to their case before any filter
        // reads the matches (`case.rs`); nothing to do in most glossaries.
        let case = CaseFilter::of(glossary).map(|f| Box::new(f) as Box<dyn Filter>);
        if self.filters.is_empty() && case.is_none() {
            return Ok(inner);
        }
        let filters = self
            .filters
            .iter()
            .map(|info| (info.build)(glossary, params))
            .collect::<Result<Vec<_>, _>>()?;
        let filters = case.into_iter().chain(filters).collect();
        Ok(Box::new(union::Filtered::new(inner, filters)))
    }

    /// The parts, their indexes built side by side.
    fn build_parts(
        &self,
        parts: &[Part],
        glossary: &Arc<Glossary>,
        params: &Params,
        depth: usize,
    ) -> Result<Vec<Box<dyn Retriever>>, BuildError> {
        parts
            .par_iter()
            .map(|part| match part {
                Part::Retriever(info) => (info.build)(glossary, params),
                Part::Composition(c) if depth < MAX_NESTING => {
                    c.parsed()?.build_nested(glossary, params, depth + 1)
                }
                Part::Composition(c) => Err(UnknownRetriever::retriever(c.spec, c.name).into()),
            })
            .collect()
    }

    /// The union with `normalised`, `edit`, `split` and `alias` read from
    /// one index over sources and aliases (`shared.rs`); the other parts as
    /// they are.
    fn build_shared(
        &self,
        glossary: &Arc<Glossary>,
        params: &Params,
        depth: usize,
    ) -> Result<union::Union, BuildError> {
        let own: Vec<Part> = self
            .union
            .iter()
            .copied()
            .filter(|p| shared_part(p).is_none())
            .collect();
        let (index, own) = rayon::join(
            || SharedTiers::new(glossary, params),
            || self.build_parts(&own, glossary, params, depth),
        );
        let mut own = own?.into_iter();
        let parts = self
            .union
            .iter()
            .map(|p| {
                shared_part(p).unwrap_or_else(|| {
                    union::Part::Own(own.next().expect("one built part per own part"))
                })
            })
            .collect();
        Ok(union::Union::with_shared(parts, index))
    }

    /// What the spec finds before any filter: the union with compositions
    /// expanded and every filter dropped (`glossa` →
    /// `normalised+irregular+edit+split+alias`). `None` when nothing filters.
    pub(crate) fn unfiltered(&self) -> Option<Spec> {
        let mut filtered = !self.filters.is_empty();
        let union = self.expanded_union(0, &mut filtered);
        filtered.then_some(Spec {
            union,
            filters: Vec::new(),
        })
    }

    /// Whether the spec, its compositions expanded, names the registered
    /// retriever `name`.
    /// The names of the union's parts, compositions expanded.
    pub(crate) fn retrievers(&self) -> Vec<&'static str> {
        self.expanded_union(0, &mut false)
            .iter()
            .map(Part::name)
            .collect()
    }

    pub(crate) fn uses(&self, name: &str) -> bool {
        self.expanded_union(0, &mut false)
            .iter()
            .any(|p| p.name() == name)
    }

    fn expanded_union(&self, depth: usize, filtered: &mut bool) -> Vec<Part> {
        let mut out = Vec::new();
        for part in &self.union {
            match part {
                Part::Composition(c) if depth < MAX_NESTING => match c.parsed() {
                    Ok(inner) => {
                        *filtered |= !inner.filters.is_empty();
                        out.extend(inner.expanded_union(depth + 1, filtered));
                    }
                    Err(_) => out.push(*part),
                },
                _ => out.push(*part),
            }
        }
        out
    }
}

/// What a union part reads from the shared index, if it is one of its
/// retrievers.
fn shared_part(part: &Part) -> Option<union::Part> {
    match shared::Tier::named(part.name()) {
        Some(tier) => Some(union::Part::Shared(tier)),
        None => (part.name() == shared::ALIAS).then_some(union::Part::SharedAlias),
    }
}

impl Composition {
    /// The composition's own spec, parsed.
    pub(crate) fn parsed(&self) -> Result<Spec, UnknownRetriever> {
        Spec::parse(self.spec)
    }
}

impl fmt::Display for Spec {
    /// The canonical text: names joined by `+`, each filter after `|`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.union.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(part.name())?;
        }
        for filter in &self.filters {
            write!(f, "|{}", filter.name)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Spec({self})")
    }
}

impl PartialEq for Spec {
    // Names are unique in the registries, so the text is the identity.
    fn eq(&self, other: &Spec) -> bool {
        self.to_string() == other.to_string()
    }
}

impl FromStr for Spec {
    type Err = UnknownRetriever;

    fn from_str(text: &str) -> Result<Spec, UnknownRetriever> {
        Spec::parse(text)
    }
}

/// An unknown or malformed retriever spec: the part that is wrong, and
/// what would have been accepted there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{problem}; known {what}s: {known} (`a+b` is a union, `a|{example}` a filter, \
     e.g. normalised+fuzzy|sense; `all` runs the reference five; see `glossa retrievers`)",
    problem = self.problem(),
    example = FILTERS.first().map_or("filter", |i| i.name),
)]
pub struct UnknownRetriever {
    pub(crate) spec: String,
    /// The unknown name (empty for an empty part such as `a+`).
    pub name: String,
    /// The names accepted in that place, comma-separated.
    pub(crate) known: String,
    /// `retriever` or `filter`.
    pub what: &'static str,
}

impl UnknownRetriever {
    fn retriever(spec: &str, name: &str) -> UnknownRetriever {
        let known: Vec<&str> = REGISTRY
            .iter()
            .map(|i| i.name)
            .chain(COMPOSITIONS.iter().map(|c| c.name))
            .collect();
        UnknownRetriever {
            spec: spec.to_string(),
            name: name.to_string(),
            known: known.join(", "),
            what: "retriever",
        }
    }

    fn filter(spec: &str, name: &str) -> UnknownRetriever {
        let known: Vec<&str> = FILTERS.iter().map(|i| i.name).collect();
        UnknownRetriever {
            spec: spec.to_string(),
            name: name.to_string(),
            known: known.join(", "),
            what: "filter",
        }
    }

    /// The first clause: which name is wrong, in which spec.
    fn problem(&self) -> String {
        if self.name.is_empty() {
            format!("empty {} name in `{}`", self.what, self.spec)
        } else {
            format!("unknown {} `{}` in `{}`", self.what, self.name, self.spec)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(spec: &Spec) -> (Vec<&str>, Vec<&str>) {
        (
            spec.union.iter().map(Part::name).collect(),
            spec.filters.iter().map(|f| f.name).collect(),
        )
    }

    #[test]
    fn parse_gives_the_union_and_the_filters_in_order() {
        let spec = Spec::parse("normalised+edit|closest|sense").unwrap();
        assert_eq!(
            names(&spec),
            (vec!["normalised", "edit"], vec!["closest", "sense"])
        );
        assert!(matches!(spec.union[0], Part::Retriever(_)));
        let spec = Spec::parse("glossa+oracle").unwrap();
        assert!(matches!(spec.union[0], Part::Composition(_)));
        assert!(spec.filters.is_empty());
    }

    #[test]
    fn display_gives_the_canonical_text_back() {
        for text in [
            "exact",
            "normalised+fuzzy",
            "normalised+edit|closest|sense",
            "glossa",
        ] {
            let spec = Spec::parse(text).unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(Spec::parse(&spec.to_string()).unwrap(), spec);
        }
        let spaced: Spec = " exact + fuzzy | sense | longest ".parse().unwrap();
        assert_eq!(spaced.to_string(), "exact+fuzzy|sense|longest");
    }

    #[test]
    fn unknown_names_are_errors_naming_the_part() {
        let err = Spec::parse("normalised+fuzy").unwrap_err();
        assert_eq!((err.what, err.name.as_str()), ("retriever", "fuzy"));
        assert!(err.to_string().starts_with(
            "unknown retriever `fuzy` in `normalised+fuzy`; known retrievers: exact, normalised, irregular, fuzzy,"
        ));
        let err = Spec::parse("exact|sens").unwrap_err();
        assert_eq!((err.what, err.name.as_str()), ("filter", "sens"));
        assert_eq!(
            err.to_string(),
            "unknown filter `sens` in `exact|sens`; known filters: sense, closest, longest \
             (`a+b` is a union, `a|sense` a filter, e.g. normalised+fuzzy|sense; \
             `all` runs the reference five; see `glossa retrievers`)"
        );
        // A filter is not a retriever, and the first wrong name is named.
        assert_eq!(Spec::parse("sense").unwrap_err().what, "retriever");
        assert_eq!(Spec::parse("bogus|sens").unwrap_err().name, "bogus");
    }

    #[test]
    fn empty_parts_are_errors() {
        let err = Spec::parse("exact+").unwrap_err();
        assert_eq!((err.what, err.name.as_str()), ("retriever", ""));
        assert!(err
            .to_string()
            .starts_with("empty retriever name in `exact+`;"));
        assert_eq!(Spec::parse("exact|").unwrap_err().what, "filter");
        assert_eq!(Spec::parse("|sense").unwrap_err().what, "retriever");
        assert_eq!(Spec::parse("").unwrap_err().what, "retriever");
    }

    #[test]
    fn every_composition_parses_and_expands() {
        for c in COMPOSITIONS {
            let spec = c.parsed().unwrap();
            let unfiltered = Spec::parse(c.name).unwrap().unfiltered();
            let expected = (!spec.filters.is_empty()).then(|| Spec {
                union: spec.union.clone(),
                filters: Vec::new(),
            });
            assert_eq!(unfiltered, expected, "{}", c.name);
        }
    }

    #[test]
    fn unfiltered_drops_filters_and_expands_compositions() {
        let unfiltered = |text: &str| {
            Spec::parse(text)
                .unwrap()
                .unfiltered()
                .map(|s| s.to_string())
        };
        assert_eq!(unfiltered("normalised+fuzzy"), None);
        assert_eq!(unfiltered("exact|sense").as_deref(), Some("exact"));
        let glossa = unfiltered("glossa").unwrap();
        assert!(
            !glossa.contains('|') && !glossa.contains("glossa"),
            "{glossa}"
        );
        assert_eq!(unfiltered("glossa+exact"), Some(format!("{glossa}+exact")));
    }
}
