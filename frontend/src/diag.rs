//! Source positions and the front end's error: `file:line:col: error: message`, then the source
//! line and a caret under the column, as compilers print them.

use std::fmt;

/// A Python source file with its line starts, for turning byte offsets into lines and columns.
pub struct Source {
    pub file: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl Source {
    pub fn new(file: &str, text: &str) -> Source {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            file: file.to_owned(),
            text: text.to_owned(),
            line_starts,
        }
    }

    /// 1-based line and 0-based column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count();
        (line as u32 + 1, col as u32)
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line as usize).saturating_sub(1);
        let start = self.line_starts.get(i).copied().unwrap_or(self.text.len());
        let end = self
            .line_starts
            .get(i + 1)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        self.text[start..end.max(start)].trim_end_matches('\r')
    }

    /// An error at byte `offset`.
    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> FrontendError {
        // An error at the end of the file (an unexpected EOF) points after its last token.
        let mut offset = offset.min(self.text.len());
        if self.text[offset..].trim().is_empty() {
            offset = self.text[..offset].trim_end().len();
        }
        let (line, col) = self.line_col(offset);
        FrontendError {
            file: self.file.clone(),
            line,
            col: col + 1,
            message: message.into(),
            source_line: self.line_text(line).to_owned(),
        }
    }
}

/// A front-end error: where (1-based line and column; line 0 when there is no position) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontendError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
    pub source_line: String,
}

impl FrontendError {
    /// An error about the file (or the command line) without a position.
    pub fn general(file: &str, message: impl Into<String>) -> FrontendError {
        FrontendError {
            file: file.to_owned(),
            line: 0,
            col: 0,
            message: message.into(),
            source_line: String::new(),
        }
    }
}

impl fmt::Display for FrontendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: error: {}", self.file, self.message);
        }
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        writeln!(f, "{}", self.source_line)?;
        // Keep tabs so the caret lines up under the column.
        let pad: String = self
            .source_line
            .chars()
            .take(self.col.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "{pad}^")
    }
}

impl std::error::Error for FrontendError {}
