package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import dev.streamform.policies.declarations.GateThresholds;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gates:} in streamform.yml: the release gates' thresholds (docs/semantics.md §10). */
class GateThresholdsTest {
  @TempDir Path dir;

  private ProjectFolder withGates(String gates) {
    return ProjectFolder.seed(dir).models(ProjectFolder.MODELS + "gates:\n" + gates);
  }

  @Test
  void aProjectWithoutGatesHasTheContractsDefaults() throws Exception {
    GateThresholds g = ProjectFolder.seed(dir).load().gates();
    assertThat(g, is(GateThresholds.defaults()));
    assertThat(g.publicationLatencyP99(), is(Duration.ofSeconds(60)));
    assertThat(g.oracleAgreementPercent(), is(100.0));
    assertThat(g.effectsPerKey(), is(1L));
  }

  @Test
  void declaredThresholdsReplaceTheDefaultsKeyByKey() throws Exception {
    GateThresholds g =
        withGates("  publication_latency_p99: 30s\n  oracle_traces: 50\n  oracle_seed: 7\n")
            .load()
            .gates();
    assertThat(g.publicationLatencyP99(), is(Duration.ofSeconds(30)));
    assertThat(g.oracleTraces(), is(50));
    assertThat(g.oracleSeed(), is(7L));
    assertThat(g.missingOffsets(), is(0L));
    assertThat(g.lateDispositionPercent(), is(100.0));
  }

  @Test
  void badThresholdsNameTheirLineAndKey() {
    assertThat(
        withGates(
                "  oracle_traces: 0\n"
                    + "  late_disposition: 99\n"
                    + "  publication_latency_p99: soon\n"
                    + "  missing: 0\n")
            .problems(),
        contains(
            "streamform.yml:6: gates, key 'oracle_traces': '0' is not a whole number from 1 to"
                + " 1000000 — e.g. oracle_traces: 200",
            "streamform.yml:7: gates, key 'late_disposition': '99' is not a percentage from 0% to"
                + " 100% — e.g. late_disposition: 100%",
            "streamform.yml:8: gates, key 'publication_latency_p99': bad duration: 'soon' is not a"
                + " duration; write a whole number and a unit, e.g. 500ms, 0s, 10s, 5m, 2h or 30d"
                + " — e.g. publication_latency_p99: 60s",
            "streamform.yml:9: gates, key 'missing': unknown key — known keys: oracle_traces,"
                + " oracle_seed, oracle_agreement, missing_offsets, duplicated_offsets,"
                + " recomputation_mismatches, publication_latency_p99, late_disposition,"
                + " effects_per_key"));
  }

  /** A seed may be any long: the message says "a whole number", not the long's lower bound. */
  @Test
  void aSeedThatIsNotANumberSaysSoWithoutTheLongsBounds() {
    assertThat(
        withGates("  oracle_seed: abc\n").problems(),
        contains(
            "streamform.yml:6: gates, key 'oracle_seed': 'abc' is not a whole number — e.g."
                + " oracle_seed: 1"));
  }
}
