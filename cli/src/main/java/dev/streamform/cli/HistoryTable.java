package dev.streamform.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.policies.schema.InvisibleCharacters;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.WindowHistory;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A window's revision history as a person reads it: a heading (window, key, generation, where it
 * stands), one table row per ledger revision with its values as columns, then what is held and what
 * was refused.
 *
 * <pre>
 * window [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z) merchant_id=7, generation 1 (canonical): final at revision 2
 *   projection 95dbe384decc..., logical window 63f859c63e35...
 *   revision  predecessor  status     revenue  events       digest        recorded at
 *   1         -            on_time    30       p0 0..1 (2)  0a465ba8d454  2026-11-30T10:00:01Z
 *   2         1            corrected  26       p0 0..2 (3)  02b73f3d2aec  2026-11-30T10:00:03Z
 * </pre>
 */
final class HistoryTable {
  private HistoryTable() {}

  static void print(WindowHistory w, PrintWriter out) {
    String key =
        w.key().entrySet().stream()
            .map(e -> e.getKey() + "=" + keyValue(e.getValue()))
            .collect(Collectors.joining(" "));
    String standing =
        w.current()
            .map(
                c ->
                    c.status().equals("final")
                        ? "final at revision " + c.revision()
                        : "at revision " + c.revision() + " (" + c.status() + ")")
            .orElse("no revision applied yet");
    out.println(
        "window ["
            + w.windowStart()
            + ", "
            + w.windowEnd()
            + ") "
            + key
            + ", generation "
            + w.generation()
            + (w.canonical() ? " (canonical)" : "")
            + ": "
            + standing);
    out.println("  projection " + w.projectionId() + ", logical window " + w.logicalWindowId());

    Set<String> valueColumns = new LinkedHashSet<>();
    w.ledger().forEach(r -> valueColumns.addAll(r.values().keySet()));
    List<String> header = new ArrayList<>(List.of("revision", "predecessor", "status"));
    header.addAll(valueColumns);
    header.addAll(List.of("events", "digest", "recorded at"));
    List<List<String>> rows = new ArrayList<>();
    rows.add(header);
    for (WindowHistory.LedgerRow r : w.ledger()) {
      List<String> row =
          new ArrayList<>(
              List.of(
                  String.valueOf(r.revision()),
                  r.predecessor() == null ? "-" : String.valueOf(r.predecessor()),
                  r.status()));
      for (String column : valueColumns) {
        row.add(text(r.values().get(column)));
      }
      row.add(offsets(r.offsets()));
      row.add(Ledger.shortId(r.digest()));
      row.add(seconds(r.recordedAt()));
      rows.add(row);
    }
    if (!w.ledger().isEmpty()) {
      printAligned(rows, out);
    }
    for (WindowHistory.HeldRow h : w.held()) {
      out.println(
          "  held: "
              + (h.isFinal() ? "final record of revision " : "revision ")
              + h.revision()
              + " (digest "
              + Ledger.shortId(h.digest())
              + "), waiting for revision "
              + (h.isFinal() ? h.revision() : h.revision() - 1)
              + " since "
              + seconds(h.heldAt()));
    }
    for (WindowHistory.ConflictRow c : w.conflicts()) {
      out.println(
          "  refused: "
              + (c.isFinal() ? "final record of revision " : "revision ")
              + c.revision()
              + " with digest "
              + Ledger.shortId(c.offeredDigest())
              + " at "
              + seconds(c.recordedAt())
              + ": "
              + c.reason());
    }
  }

  private static void printAligned(List<List<String>> rows, PrintWriter out) {
    int columns = rows.get(0).size();
    int[] widths = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder(" ");
      for (int i = 0; i < columns; i++) {
        line.append(' ').append(row.get(i));
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length() + 1));
        }
      }
      out.println(line);
    }
  }

  /** {@code p0 0..3 (3)} per partition: smallest and largest offset, and how many events. */
  @SuppressWarnings("unchecked")
  private static String offsets(Map<String, Object> offsets) {
    List<String> parts = new ArrayList<>();
    offsets.forEach(
        (partition, range) -> {
          Map<String, Object> r = (Map<String, Object>) range;
          parts.add(
              "p"
                  + partition
                  + " "
                  + r.get("min")
                  + ".."
                  + r.get("max")
                  + " ("
                  + r.get("count")
                  + ")");
        });
    return String.join(", ", parts);
  }

  private static String text(Object value) {
    return String.valueOf(value);
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A key value in the heading: as it is, unless it would print unlike itself or not at all —
   * empty, a space at an end, a control or invisible character ({@link InvisibleCharacters}), or a
   * quote at its start, which would read as one — then as a JSON string, {@code shop="a\nb"},
   * naming a character that JSON leaves as it is, as a did-you-mean does: {@code shop="1 000" (it
   * holds a no-break space (U+00A0) at character 2)}. {@code ledger show --window-key} reads either
   * form back ({@link #keyValueGiven}).
   */
  static String keyValue(Object value) {
    if (!(value instanceof String s)
        || !(s.isEmpty()
            || !s.strip().equals(s)
            || s.startsWith("\"")
            || InvisibleCharacters.describe(s).isPresent())) {
      return text(value);
    }
    String quoted;
    try {
      quoted = JSON.writeValueAsString(s);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // a String always serializes
    }
    return InvisibleCharacters.describe(quoted).isPresent()
        ? quoted + " (it " + InvisibleCharacters.describe(s).get() + ")"
        : quoted;
  }

  /**
   * A key value as {@code --window-key} gives it: as it is, or, when it begins with a quote, the
   * JSON string {@link #keyValue} prints for a value that would print unlike itself. Throws {@link
   * IllegalArgumentException} saying why when such a value is not one JSON string.
   */
  static String keyValueGiven(String given) {
    if (!given.startsWith("\"")) {
      return given;
    }
    try {
      com.fasterxml.jackson.core.JsonParser p = JSON.createParser(given);
      if (p.nextToken() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
        String text = p.getText();
        if (p.nextToken() == null) {
          return text;
        }
      }
    } catch (java.io.IOException e) {
      // not one JSON string: said below
    }
    throw new IllegalArgumentException(
        "a value that begins with a quote is read as a JSON string, as ledger show prints a value"
            + " that would print unlike itself (e.g. shop=\"a\\nb\"); this one is not one whole"
            + " JSON string");
  }

  private static String seconds(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
