package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A side output's row the gates cannot read names its place and a fix that can work there: a file
 * is restored or written anew by a run, but a topic keeps what was written to it and a run only
 * appends (found by a read-only audit of the gates on Kafka: the advice to run again could not
 * help).
 */
class GatesDamagedTopicTest {
  @Test
  void aDamagedFileRowSaysToRestoreOrRunAgain() {
    GatesCommand.DamagedOutputException e =
        assertThrows(
            GatesCommand.DamagedOutputException.class,
            () ->
                GatesCommand.row("m.late.jsonl:2", "[1,2]".getBytes(StandardCharsets.UTF_8), true));
    assertThat(e.getMessage(), containsString("m.late.jsonl:2: not a JSON object"));
    assertThat(e.getMessage(), containsString("or run the model again"));
  }

  @Test
  void aDamagedTopicRecordSaysARunOnlyAppendsAndWhatToSkip() {
    GatesCommand.DamagedOutputException e =
        assertThrows(
            GatesCommand.DamagedOutputException.class,
            () ->
                GatesCommand.row(
                    "topic m.duplicates partition 1 offset 2",
                    "[1,2]".getBytes(StandardCharsets.UTF_8),
                    false));
    assertThat(e.getMessage(), not(containsString("run the model again")));
    assertThat(
        e.getMessage(),
        containsString(
            "topic m.duplicates partition 1 offset 2: not a JSON object but array (each row is an"
                + " object with partition, offset) — a topic keeps every record written to it and"
                + " a run only appends, so the gates that read it cannot be measured on it: leave"
                + " them out (--skip offsets,disposition), or run the model with outputs to topics"
                + " of their own"));
  }
}
