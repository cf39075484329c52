package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watermark line in the file of a source that declares no {@code event_time} has no meaning
 * (docs/semantics.md §1: such a source behaves as if event time did not exist): quarantined at its
 * line with the reason, as a fixture refuses a watermark item for it (ADR 0091) — it was counted as
 * a watermark line, and nothing told the author it was meaningless (found by a read-only audit of
 * upsert models).
 */
class ProcessingTimeWatermarkLineTest {
  @TempDir Path dir;

  @Test
  void aWatermarkLineOfASourceWithoutEventTimeIsQuarantinedSayingWhy() throws Exception {
    Path project = dir.resolve("clicks");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  clicks:\n    connector: file\n    path: clicks.jsonl\n    schema:\n"
            + "      user: string\n      n: int64\n");
    Files.writeString(project.resolve("streamform.yml"), "models:\n  per_user:\n    key: [user]\n");
    Files.writeString(
        project.resolve("models/per_user.sql"),
        "SELECT user, SUM(n) AS total FROM source('clicks') GROUP BY user\n");
    Files.writeString(
        project.resolve("clicks.jsonl"),
        "{\"user\":\"a\",\"n\":1}\n{\"__watermark\":\"2026-08-30T11:00:00Z\"}\n"
            + "{\"user\":\"a\",\"n\":2}\n");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Path output = dir.resolve("out");
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--output",
            output.toString());
    assertThat(err.toString(), status, is(0));
    assertThat(
        out.toString(), containsString("3 lines read: 2 events processed, 0 late, 1 quarantined"));
    String quarantine = Files.readString(output.resolve("per_user.quarantine.jsonl"));
    assertThat(
        quarantine,
        containsString(
            "a watermark line (`__watermark`), but this source declares no event_time: in"
                + " processing time there is no watermark, so the line means nothing"));
    assertThat(quarantine, containsString("\"line\":2"));
  }
}
