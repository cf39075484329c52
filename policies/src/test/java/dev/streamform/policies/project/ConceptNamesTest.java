package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One word per concept (docs/concepts/glossary.md): the source's bound on disorder is {@code
 * max_out_of_orderness} ({@code watermark} is the older name, still read), and a scoring model's
 * lateness is {@code allowed_lateness} as for windows ({@code lateness} still read).
 */
class ConceptNamesTest {
  @TempDir Path dir;

  private ProjectFolder withBound(String line) {
    return ProjectFolder.seed(dir)
        .sources(ProjectFolder.SOURCES.replace("    watermark: 5m\n", line));
  }

  @Test
  void theBoundOnDisorderReadsUnderItsNameAndItsOlderOne() throws Exception {
    assertThat(
        withBound("    max_out_of_orderness: 7m\n").load().sources().get("orders").watermark(),
        is(Duration.ofMinutes(7)));
    assertThat(
        withBound("    watermark: 7m\n").load().sources().get("orders").watermark(),
        is(Duration.ofMinutes(7)));
  }

  @Test
  void bothNamesAtOnceAreRefusedAtTheOlderOne() {
    assertThat(
        withBound("    max_out_of_orderness: 7m\n    watermark: 5m\n").problems(),
        contains(
            "sources.yml:12: source 'orders', key 'watermark': 'watermark' and"
                + " 'max_out_of_orderness' are the same setting — keep max_out_of_orderness:"
                + " (watermark: is its older name) and remove watermark"));
  }

  @Test
  void theBoundWithoutAnEventTimeNamesTheKeyAsWritten() {
    String sources =
        ProjectFolder.SOURCES
            .replace("    event_time: ordered_at\n", "")
            .replace("    watermark: 5m\n", "    max_out_of_orderness: 5m\n")
            .replace("    late_events: drop\n", "");
    assertThat(
        ProjectFolder.seed(dir).sources(sources).problems(),
        contains(
            "sources.yml:10: source 'orders', key 'max_out_of_orderness': an out-of-orderness bound"
                + " needs an event-time column — add event_time: <timestamp column> or remove"
                + " max_out_of_orderness"));
  }

  @Test
  void aScoringModelsLatenessIsAllowedLatenessAsForWindows() throws Exception {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .models(
                "models:\n  customer_metrics:\n    key: [customer_id]\n    decisions:\n"
                    + "      features_over: 1h\n      linear: models/risk.linear.yml\n"
                    + "      allowed_lateness: 15m\n")
            .write("models/risk.linear.yml", "bias: 0\nweights:\n  amount: 0.01\n");
    assertThat(
        project.load().models().get("customer_metrics").decisions().get().lateness(),
        is(Duration.ofMinutes(15)));
  }
}
