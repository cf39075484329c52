package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code check} warns about in a scoring model's declaration (allowed, but not what its author
 * meant, ADR 0177): a repeat of an event id that outlives the ids' horizon while it is not yet late
 * gets a decision of its own; and a clock-skew bound without an arrival column judges a fixture's
 * events against the epoch.
 */
class ScoringWarningsTest {
  @TempDir Path dir;

  private static final String SOURCES =
      """
      sources:
        tx:
          connector: file
          path: "tx-*.jsonl"
          format: json
          schema: { id: string, k: int64, amt: int64, t: timestamp, recv: timestamp }
          event_time: t
          watermark: 0s
          event_id: id
          duplicates_within: %s
      """;

  private List<String> warnings(String duplicatesWithin, String decisions) throws Exception {
    ProjectFolder p =
        ProjectFolder.at(dir)
            .sources(SOURCES.formatted(duplicatesWithin))
            .models(
                "models:\n  m:\n    key: [k]\n    decisions:\n      features_over: 1h\n"
                    + "      linear: models/lin.yml\n"
                    + decisions)
            .write("models/lin.yml", "bias: 0\nweights: { spend: 1 }\n")
            .sql("m", "SELECT k, SUM(amt) AS spend FROM source('tx') GROUP BY k\n");
    return p.load().warnings().stream().map(Problem::toString).toList();
  }

  @Test
  void aLatenessLongerThanTheIdsHorizonIsWarnedAbout() throws Exception {
    assertThat(
        warnings("1m", "      lateness: 10m\n"),
        contains(
            "streamform.yml:7: model 'm', key 'decisions.lateness': a repeat of an event_id of"
                + " source 'tx' is a new event once 1m (its duplicates_within) is reached, and it"
                + " is late only past 10m (lateness): a repeat in between gets a decision of its"
                + " own — this is allowed; give duplicates_within longer than 10m on source 'tx'"
                + " in sources.yml, or a lateness shorter than 1m, unless a repeat that late is"
                + " really a new event"));
    // a repeat at exactly its time + 10m is forgotten and on time: a decision of its own (ADR 0198)
    assertThat(warnings("10m", "      lateness: 10m\n"), hasSize(1));
    assertThat(warnings("11m", "      lateness: 10m\n"), is(empty()));
  }

  /**
   * The audit's case: a late repeat past the ids' horizon is a new late event, and a late event
   * revises decisions up to 2 x features_over + lateness after its time, so it revises them again.
   */
  @Test
  void aLateRepeatThatCanStillReviseAfterTheIdsHorizonIsWarnedAbout() throws Exception {
    String revise = "      lateness: 10m\n      late_action: revise\n";
    assertThat(
        warnings("2h", revise),
        contains(
            "streamform.yml:8: model 'm', key 'decisions.late_action': a late repeat of an"
                + " event_id of source 'tx' is a new event once 2h (its duplicates_within) is"
                + " reached, but a late event revises decisions until 130m after its time (2 x"
                + " features_over + lateness): a repeat in between revises them again, its values"
                + " counted twice — this is allowed; give duplicates_within: 130m or more on"
                + " source 'tx' in sources.yml, unless a repeat that late is really a new event"));
    assertThat(warnings("130m", revise), is(empty()));
    // ignored late events that leave the state alone change nothing however late they repeat
    assertThat(warnings("2h", "      lateness: 10m\n"), is(empty()));
  }

  @Test
  void aClockSkewBoundWithoutAnArrivalColumnIsWarnedAbout() throws Exception {
    assertThat(
        warnings("1h", "      max_clock_skew: 5m\n"),
        contains(
            "streamform.yml:7: model 'm', key 'decisions.max_clock_skew': without arrival, an"
                + " event's arrival is its record's ingest time — the wall clock in a run, the"
                + " epoch (1970-01-01) for a fixture's events, so in a fixture every event is more"
                + " than 5m ahead of its arrival and is dead-lettered — this is allowed; name the"
                + " column that says when a record arrived, e.g. arrival: recv"));
    assertThat(warnings("1h", "      max_clock_skew: 5m\n      arrival: recv\n"), is(empty()));
  }

  /**
   * The audit's case: the decisions' lateness and late_action judge a late event, so the source's
   * late_events: drop drops none of them (the scoring clock keeps late events).
   */
  @Test
  void lateEventsDropOnAScoringModelsSourceIsWarnedAbout() throws Exception {
    assertThat(
        warnings("1h\n    late_events: drop", "      lateness: 10m\n"),
        contains(
            "sources.yml:11: source 'tx', key 'late_events': for scoring model 'm' the"
                + " decisions' lateness and late_action decide what a late event does, so"
                + " late_events: drop has no effect there (its late events are kept and judged by"
                + " the lateness) — this is allowed; write late_events: keep (drop is the"
                + " default), unless a model without window or decisions reads source 'tx' and is"
                + " to drop its late events"));
    assertThat(warnings("1h\n    late_events: keep", "      lateness: 10m\n"), is(empty()));
    assertThat(warnings("1h", "      lateness: 10m\n"), is(empty()));
  }
}
