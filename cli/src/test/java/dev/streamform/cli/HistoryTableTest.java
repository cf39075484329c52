package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import dev.streamform.sink.WindowHistory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The heading of {@code ledger show}: a key value that would print unlike itself (empty, spaces at
 * an end, a line break, a character one cannot see) is shown as a JSON string; a plain one as is.
 */
class HistoryTableTest {
  private static String heading(Object... keyValues) {
    Map<String, Object> key = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      key.put((String) keyValues[i], keyValues[i + 1]);
    }
    WindowHistory w =
        new WindowHistory(
            "p",
            "m",
            "w",
            1,
            key,
            Instant.parse("2026-08-30T10:00:00Z"),
            Instant.parse("2026-08-30T11:00:00Z"),
            Optional.empty(),
            List.of(),
            List.of(),
            List.of(),
            false);
    StringWriter out = new StringWriter();
    HistoryTable.print(w, new PrintWriter(out, true));
    String first = out.toString().substring(0, out.toString().indexOf("\n  projection"));
    return first.substring(
        first.indexOf(") ") + 2, first.indexOf(", generation 1: no revision applied yet"));
  }

  @Test
  void plainKeyValuesPrintAsTheyAre() {
    assertThat(heading("merchant_id", 7L, "shop", "north 2"), is("merchant_id=7 shop=north 2"));
  }

  @Test
  void aKeyValueThatWouldPrintUnlikeItselfIsAJsonString() {
    assertThat(heading("shop", "a\nb"), is("shop=\"a\\nb\""));
    assertThat(heading("shop", ""), is("shop=\"\""));
    assertThat(heading("shop", " spaced "), is("shop=\" spaced \""));
    assertThat(heading("shop", "bell\u0007"), is("shop=\"bell\\u0007\""));
    assertThat(heading("shop", "say \"hi\"\t"), is("shop=\"say \\\"hi\\\"\\t\""));
    // one that begins with a quote would read as a JSON string: it is one, so --window-key takes
    // it back as it is printed
    assertThat(heading("shop", "\"x\""), is("shop=\"\\\"x\\\"\""));
  }

  @Test
  void aCharacterJsonLeavesAsItIsNamed() {
    assertThat(
        heading("shop", "1\u00A0000"),
        is("shop=\"1\u00A0000\" (it holds a no-break space (U+00A0) at character 2)"));
  }
}
