package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's output file damaged after the run (a line appended, a byte changed): gates names the
 * file, the line and what is wrong, never a Java exception (no database needed: the reader alone).
 */
class GatesOutputFilesTest {
  private static final String LATE_ROW =
      "{\"window_start\":\"2026-08-30T10:00:00Z\",\"partition\":0,\"offset\":6}";

  @TempDir Path dir;

  private String refused(String content, boolean late) throws IOException {
    Path file = dir.resolve("m.late.jsonl");
    Files.writeString(file, content);
    IOException e = assertThrows(IOException.class, () -> GatesCommand.rows(file, late));
    assertThat(e.getMessage(), not(containsString("Exception")));
    assertThat(e.getMessage(), not(containsString("Source: ")));
    assertThat(e.getMessage(), startsWith(file + ":2:"));
    assertThat(e.getMessage(), containsString(" — "));
    return e.getMessage();
  }

  @Test
  void aWellFormedLateFileIsRead() throws IOException {
    Path file = dir.resolve("m.late.jsonl");
    Files.writeString(file, LATE_ROW + "\n\n" + LATE_ROW + "\n");
    assertThat(GatesCommand.rows(file, true).size(), is(2));
  }

  @Test
  void aLineThatIsNotAnObjectIsNamed() throws IOException {
    assertThat(refused(LATE_ROW + "\n[1,2]\n", true), containsString("not a JSON object"));
  }

  @Test
  void aLineThatIsNotJsonIsNamed() throws IOException {
    assertThat(refused(LATE_ROW + "\n{\"broken\n", true), containsString("not JSON"));
  }

  @Test
  void aMissingOrWrongTypedFieldIsNamed() throws IOException {
    assertThat(
        refused(LATE_ROW + "\n{\"window_start\":\"2026-08-30T10:00:00Z\",\"offset\":6}\n", true),
        containsString("\"partition\""));
    assertThat(
        refused(
            LATE_ROW
                + "\n"
                + "{\"window_start\":\"2026-08-30T10:00:00Z\",\"partition\":0,\"offset\":\"x\"}\n",
            true),
        containsString("\"offset\""));
    assertThat(
        refused(LATE_ROW + "\n{\"partition\":0,\"offset\":6}\n", true),
        containsString("\"window_start\""));
    assertThat(
        refused(LATE_ROW + "\n{\"window_start\":\"soon\",\"partition\":0,\"offset\":6}\n", true),
        containsString("\"window_start\""));
  }

  @Test
  void aQuarantineRowNeedsNoWindow() throws IOException {
    Path file = dir.resolve("m.quarantine.jsonl");
    Files.writeString(file, "{\"partition\":0,\"offset\":3,\"reason\":\"x\"}\n");
    assertThat(GatesCommand.rows(file, false).size(), is(1));
  }

  /**
   * An output row too large for Kafka, quarantined in its place (ADR 0199), has no position: it is
   * no event's disposition and is left out (the review found gates would refuse the output).
   */
  @Test
  void aRowTooLargeForKafkaIsNoEventsDisposition() throws IOException {
    Path file = dir.resolve("m.quarantine.jsonl");
    Files.writeString(
        file,
        "{\"partition\":0,\"offset\":3,\"reason\":\"x\"}\n"
            + "{\"reason\":\"its m row is 1,200,141 bytes\",\"topic\":\"m\",\"key\":\"{}\","
            + "\"value\":null,\"value_base64\":\"\",\"value_truncated\":true,"
            + "\"value_bytes\":1200000}\n");
    assertThat(GatesCommand.rows(file, false).size(), is(1));
  }

  @Test
  void aByteThatIsNotUtf8IsNamedWithItsPosition() throws IOException {
    Path file = dir.resolve("m.quarantine.jsonl");
    byte[] row =
        ("{\"partition\":0,\"offset\":3}\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] bytes = new byte[row.length + 2];
    System.arraycopy(row, 0, bytes, 0, row.length);
    bytes[row.length] = (byte) 0xff;
    bytes[row.length + 1] = '\n';
    Files.write(file, bytes);
    IOException e = assertThrows(IOException.class, () -> GatesCommand.rows(file, false));
    assertThat(e.getMessage(), startsWith(file + ":2: not UTF-8 text"));
    assertThat(e.getMessage(), containsString("byte 1 of the line is 0xFF"));
  }
}
