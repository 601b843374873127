//! What a failed compilation reports: a [`CompileError`] naming the [`Stage`] that failed and the
//! [`Diagnostic`]s (`file:line:col: error: message`) MLIR or LLVM emitted there.

use crate::stage::Stage;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use tritium_dialects::melior::{Context, diagnostic::DiagnosticSeverity, ir::Location};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        })
    }
}

/// One message, printed `file:line:col: severity: message` (without the position when it has
/// none, as LLVM's verifier messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// `file:line:col`, the location's text when it has no file position, or empty.
    pub location: String,
    pub message: String,
}

impl Diagnostic {
    /// An error without a source position.
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            location: String::new(),
            message: message.into(),
        }
    }

    /// An error at `location`.
    pub fn error_at(location: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            location: location.into(),
            ..Diagnostic::error(message)
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.location.is_empty() {
            write!(f, "{}: ", self.location)?;
        }
        write!(f, "{}: {}", self.severity, self.message)
    }
}

/// Why a compilation failed.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The options themselves are invalid (before any stage runs).
    #[error("{0}")]
    Options(String),
    /// An option contradicts what the input module records (TTGIR input).
    #[error("{file}: {option} {given} contradicts the module's {attribute} = {recorded}")]
    Contradiction {
        file: String,
        option: &'static str,
        given: String,
        attribute: &'static str,
        recorded: String,
    },
    /// The source (Python, for the kernel-language front end) has an error: the message is
    /// complete (`file:line:col: error: ...` with the source line).
    #[error("{0}")]
    Source(String),
    /// A stage failed.
    #[error("stage `{stage}` ({}) failed{}", stage.title(), listed(diagnostics))]
    Stage {
        stage: Stage,
        diagnostics: Vec<Diagnostic>,
    },
    /// The IR a stage produced does not verify.
    #[error("the IR after stage `{stage}` ({}) does not verify{}", stage.title(), listed(diagnostics))]
    Verify {
        stage: Stage,
        diagnostics: Vec<Diagnostic>,
    },
}

impl CompileError {
    /// A stage failure with one error message.
    pub fn stage(stage: Stage, message: impl Into<String>) -> CompileError {
        CompileError::Stage {
            stage,
            diagnostics: vec![Diagnostic::error(message)],
        }
    }

    /// The stage that failed, if one did.
    pub fn failed_stage(&self) -> Option<Stage> {
        match self {
            CompileError::Stage { stage, .. } | CompileError::Verify { stage, .. } => Some(*stage),
            _ => None,
        }
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            CompileError::Stage { diagnostics, .. } | CompileError::Verify { diagnostics, .. } => {
                diagnostics
            }
            _ => &[],
        }
    }
}

/// The diagnostics on the lines after the headline.
fn listed(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|diagnostic| format!("\n{diagnostic}"))
        .collect()
}

/// Collects a context's diagnostics, to be taken by the stage that caused them.
pub(crate) struct DiagnosticSink {
    collected: Rc<RefCell<Vec<Diagnostic>>>,
}

impl DiagnosticSink {
    pub(crate) fn attach(context: &Context) -> DiagnosticSink {
        let collected = Rc::new(RefCell::new(Vec::new()));
        let sink = collected.clone();
        context.attach_diagnostic_handler(move |diagnostic| {
            let severity = match diagnostic.severity() {
                DiagnosticSeverity::Error => Severity::Error,
                DiagnosticSeverity::Warning => Severity::Warning,
                DiagnosticSeverity::Note => Severity::Note,
                DiagnosticSeverity::Remark => Severity::Remark,
            };
            sink.borrow_mut().push(Diagnostic {
                severity,
                location: source_position(&diagnostic.location()),
                message: diagnostic.to_string(),
            });
            true
        });
        DiagnosticSink { collected }
    }

    /// Everything collected since the last take; `fallback` as an error when that is nothing.
    pub(crate) fn take(&self, fallback: &str) -> Vec<Diagnostic> {
        let taken = std::mem::take(&mut *self.collected.borrow_mut());
        if taken.is_empty() {
            vec![Diagnostic::error(fallback)]
        } else {
            taken
        }
    }

    /// Drops what was collected (warnings and remarks of a stage that succeeded).
    pub(crate) fn clear(&self) {
        self.collected.borrow_mut().clear();
    }
}

/// `file:line:col` of a location: the first file position inside it (named and call-site
/// locations wrap one), or the location's text (`unknown`) when there is none.
pub(crate) fn source_position(location: &Location) -> String {
    match crate::location::file_position(location.to_raw()) {
        Some(position) => position.to_string(),
        None => location
            .to_string()
            .trim_start_matches("loc(")
            .trim_end_matches(')')
            .replace('"', ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_point_at_the_source_position() {
        let context = tritium_dialects::context::new_context();
        let file = Location::new(&context, "k.ttir", 3, 7);
        assert_eq!(source_position(&file), "k.ttir:3:7");
        assert_eq!(
            source_position(&Location::name(&context, "da", file)),
            "k.ttir:3:7"
        );
        assert_eq!(source_position(&Location::unknown(&context)), "unknown");
    }

    #[test]
    fn errors_name_the_stage_and_list_the_diagnostics() {
        let error = CompileError::Stage {
            stage: Stage::LowerToLlvm,
            diagnostics: vec![
                Diagnostic::error_at("k.ttir:3:7", "no Tritium implementation of 'f'"),
                Diagnostic::error("second"),
            ],
        };
        assert_eq!(
            error.to_string(),
            "stage `llvm-dialect` (lowering to the LLVM dialect) failed\n\
             k.ttir:3:7: error: no Tritium implementation of 'f'\n\
             error: second"
        );
        assert_eq!(error.failed_stage(), Some(Stage::LowerToLlvm));
    }
}
