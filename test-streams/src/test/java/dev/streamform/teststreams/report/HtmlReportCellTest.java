package dev.streamform.teststreams.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A table cell of the report shows a character one cannot see as its escape, as the terminal's
 * failure table does (ADR 0138): a value with a no-break space and one with a plain space looked
 * the same in the report's expected and actual tables (found by a read-only audit of the report).
 */
class HtmlReportCellTest {
  @Test
  void anInvisibleCharacterIsShownAsItsEscape() {
    assertEquals("1\\u00A0000", HtmlReport.cell("1\u00A0000"));
    assertEquals("a\\u200Bb", HtmlReport.cell("a\u200Bb"));
    assertEquals("north 2", HtmlReport.cell("north 2"));
  }
}
