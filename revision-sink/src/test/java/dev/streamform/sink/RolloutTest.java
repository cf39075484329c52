package dev.streamform.sink;

import static dev.streamform.sink.Revisions.finalOf;
import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.ProviderSpec;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rollout of a new policy generation (the seed's rollout paragraph): a shadow generation is
 * written beside the canonical one without moving the alias or preparing an effect, compared window
 * by window, promoted and rolled back — and every revision of both generations is still there.
 */
class RolloutTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /**
   * A reward at revenue 1000; nothing is dispatched here, so the provider's address is never
   * called.
   */
  private static final EffectRule REWARD = reward();

  private static EffectRule reward() {
    try {
      return EffectRule.of(
          Revisions.MODEL,
          "reward",
          "merchant_id",
          "revenue >= 1000",
          ProviderSpec.webhook("http://127.0.0.1:9/rewards", true, true));
    } catch (dev.streamform.policies.sql.SqlModelException e) {
      throw new IllegalStateException(e);
    }
  }

  private HikariDataSource pool;
  private LedgerWriter live;
  private LedgerWriter shadow;
  private Ledger ledger;

  @BeforeEach
  void freshDatabase() {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 2, 1_000);
    live = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(REWARD));
    shadow = LedgerWriter.shadow(pool, Duration.ofSeconds(30));
    ledger = Ledger.at(pool);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  private List<String> rows(String sql) throws SQLException {
    return Tables.rows(pool, sql);
  }

  @Test
  void aShadowGenerationWrittenFirstNeverBecomesCanonicalNorPreparesAnEffect() throws Exception {
    // the shadow job happens to write before any job of the live generation: no alias, no effect
    LedgerWriter.Outcome first = shadow.write(List.of(revision(7, 10, 1, "1200", 2)));
    assertThat(first.applied(), equalTo(1));
    assertThat(first.effects(), equalTo(LedgerWriter.Effects.NONE));
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).isPresent(), equalTo(false));
    assertThat(
        rows("SELECT count(*) FROM streamform.canonical_alias_history"), equalTo(List.of("0")));
    assertThat(rows("SELECT count(*) FROM streamform.canonical_projection"), equalTo(List.of("0")));

    // the live generation 1 writes: it becomes canonical by its first write and prepares its effect
    LedgerWriter.Outcome liveFirst = live.write(List.of(revision(7, 10, 1, "1100", 1)));
    assertThat(liveFirst.effects().prepared(), equalTo(1));
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).getAsInt(), equalTo(1));
    assertThat(
        rows(
            "SELECT generation, made_true_by, state, payload->'values'->>'revenue' FROM"
                + " streamform.effect"),
        equalTo(List.of("1 1 PREPARED 1100")));

    // the shadow goes on (a correction, a new window above the target): still nothing of it
    // anywhere
    LedgerWriter.Outcome more =
        shadow.write(List.of(revision(7, 10, 2, "1300", 2), revision(8, 10, 1, "5000", 2)));
    assertThat(more.applied(), equalTo(2));
    assertThat(more.effects(), equalTo(LedgerWriter.Effects.NONE));
    assertThat(
        rows(
            "SELECT generation, revision, state, payload->'values'->>'revenue' FROM"
                + " streamform.effect"),
        equalTo(List.of("1 1 PREPARED 1100")));
    assertThat(rows("SELECT count(*) FROM streamform.effect_transition"), equalTo(List.of("1")));
    assertThat(
        rows("SELECT generation, set_by FROM streamform.canonical_alias_history"),
        equalTo(List.of("1 first write")));
  }

  @Test
  void aShadowWithEffectRulesWritingBeforeAnyAliasPreparesNothing() throws Exception {
    // review of rollout, finding 1: with no alias yet, the shadow's own first write must not count
    // as canonical for the outbox either — its rules act only where keys read its generation
    LedgerWriter shadowWithRules =
        LedgerWriter.shadow(pool, Duration.ofSeconds(30), List.of(REWARD));
    LedgerWriter.Outcome first =
        shadowWithRules.write(
            List.of(revision(7, 10, 1, "1200", 2), revision(7, 10, 2, "1300", 2)));
    assertThat(first.applied(), equalTo(2));
    assertThat(first.effects(), equalTo(LedgerWriter.Effects.NONE));
    assertThat(rows("SELECT count(*) FROM streamform.effect"), equalTo(List.of("0")));
    assertThat(rows("SELECT count(*) FROM streamform.canonical_alias"), equalTo(List.of("0")));
  }

  @Test
  void aFirstBatchOfTwoGenerationsMakesTheLowestCanonical() throws Exception {
    // one batch on an empty ledger: merchant 7's window in generation 2 (offered first),
    // merchant 8's in generation 1 — generation 1 becomes canonical, not the other
    LedgerWriter writer = new LedgerWriter(pool, Duration.ofSeconds(30));
    LedgerWriter.Outcome first =
        writer.write(List.of(revision(7, 10, 1, "1200", 2), revision(8, 10, 1, "10", 1)));
    assertThat(first.applied(), equalTo(2));
    assertThat(
        rows("SELECT model, generation, set_by FROM streamform.canonical_alias"),
        equalTo(List.of(Revisions.MODEL + " 1 first write")));
    assertThat(
        rows("SELECT generation FROM streamform.canonical_alias_history"), equalTo(List.of("1")));
    assertThat(
        rows(
            "SELECT generation, window_key->>'merchant_id', aggregate_values->>'revenue' FROM"
                + " streamform.canonical_projection"),
        equalTo(List.of("1 8 10")));
  }

  @Test
  void aShadowWriterStillRunningAfterItsGenerationWasPromotedPreparesTheEffectsItMakesTrue()
      throws Exception {
    LedgerWriter shadowWithRules =
        LedgerWriter.shadow(pool, Duration.ofSeconds(30), List.of(REWARD));
    live.write(List.of(revision(7, 10, 1, "400", 1), revision(8, 10, 1, "10", 1)));
    // not canonical for any key: the shadow's revisions prepare nothing, rules or not
    LedgerWriter.Outcome before =
        shadowWithRules.write(List.of(revision(7, 10, 1, "400", 2), revision(8, 10, 1, "10", 2)));
    assertThat(before.effects(), equalTo(LedgerWriter.Effects.NONE));
    ledger.setCanonicalGeneration(Revisions.MODEL, 2);
    // the shadow job still runs and its correction makes merchant 8's reward true: generation 2 is
    // what every key reads now, so the revision prepares the effect (ADR 0179)
    LedgerWriter.Outcome after = shadowWithRules.write(List.of(revision(8, 10, 2, "2000", 2)));
    assertThat(after.applied(), equalTo(1));
    assertThat(after.effects().prepared(), equalTo(1));
    assertThat(
        rows("SELECT generation, made_true_by, state FROM streamform.effect"),
        equalTo(List.of("2 2 PREPARED")));
    // the same revision from a live writer of generation 2 started afterwards is a replay: still
    // one effect
    assertThat(live.write(List.of(revision(8, 10, 2, "2000", 2))).replayed(), equalTo(1));
    assertThat(rows("SELECT count(*) FROM streamform.effect"), equalTo(List.of("1")));
  }

  @Test
  void aShadowSinkTakesEffectRulesAndStaysAShadow() {
    RevisionSink sink = RevisionSink.to(JdbcTarget.of("jdbc:postgresql://127.0.0.1:9/x"));
    assertThat(sink.withEffects(List.of(REWARD)).asShadow().shadow(), equalTo(true));
    assertThat(sink.asShadow().withEffects(List.of(REWARD)).effects().size(), equalTo(1));
    assertThat(sink.shadow(), equalTo(false));
  }

  @Test
  void compareReportsEachWindowEqualDifferentOrOnlyInOneGeneration() throws Exception {
    // generation 1: merchant 7 corrected 30 -> 26, final; 8 at 12; 9 only here
    live.write(
        List.of(
            revision(7, 10, 1, "30", 1),
            revision(7, 10, 2, "26", 1),
            finalOf(revision(7, 10, 2, "26", 1)),
            revision(8, 10, 1, "12", 1),
            revision(9, 10, 1, "5", 1)));
    // generation 2 (a longer watermark): merchant 7 reaches 26 in one revision; 8 differs; 7 at
    // 11:00 only here
    shadow.write(
        List.of(
            revision(7, 10, 1, "26", 2), revision(8, 10, 1, "15", 2), revision(7, 11, 1, "3", 2)));

    GenerationComparison c = ledger.compare(Revisions.MODEL, 1, 2);
    Map<String, String> byWindow =
        c.windows().stream()
            .collect(
                Collectors.toMap(
                    w ->
                        w.key().get("merchant_id")
                            + "@"
                            + w.windowStart().toString().substring(11, 13),
                    w ->
                        w.kind().label()
                            + w.from()
                                .map(
                                    s ->
                                        " A:"
                                            + s.revision()
                                            + "/"
                                            + s.status()
                                            + "/"
                                            + s.values().get("revenue"))
                                .orElse("")
                            + w.to()
                                .map(
                                    s ->
                                        " B:"
                                            + s.revision()
                                            + "/"
                                            + s.status()
                                            + "/"
                                            + s.values().get("revenue"))
                                .orElse("")));
    assertThat(
        byWindow,
        equalTo(
            Map.of(
                "7@10", "equal A:2/final/26 B:1/on_time/26",
                "8@10", "different A:1/on_time/12 B:1/on_time/15",
                "9@10", "only in A A:1/on_time/5",
                "7@11", "only in B B:1/on_time/3")));
    assertThat(
        c.windows().stream().map(w -> w.key().get("merchant_id") + "@" + w.windowStart()).toList(),
        equalTo(
            List.of(
                "7@2026-08-30T10:00:00Z",
                "8@2026-08-30T10:00:00Z",
                "9@2026-08-30T10:00:00Z",
                "7@2026-08-30T11:00:00Z")));
    assertThat(
        c.summary(),
        equalTo("4 windows: 1 equal, 1 different, 1 only in generation 1, 1 only in generation 2"));
    assertThat(c.allEqual(), equalTo(false));
    assertThat(
        ledger.compare(Revisions.MODEL, 2, 1).summary(),
        equalTo("4 windows: 1 equal, 1 different, 1 only in generation 2, 1 only in generation 1"));
    assertThat(
        ledger.generations(Revisions.MODEL), equalTo(new java.util.TreeMap<>(Map.of(1, 3, 2, 3))));
  }

  @Test
  void promoteThenRollBackKeepsEveryRevisionOfBothGenerations() throws Exception {
    live.write(
        List.of(
            revision(7, 10, 1, "30", 1), revision(7, 10, 2, "26", 1), revision(8, 10, 1, "12", 1)));
    shadow.write(List.of(revision(7, 10, 1, "26", 2), revision(8, 10, 1, "12", 2)));
    String ledgerBefore =
        String.join(
            "\n",
            rows(
                "SELECT projection_id, revision, aggregate_digest, recorded_at FROM"
                    + " streamform.correction_ledger ORDER BY 1, 2"));
    String projectionsBefore =
        String.join(
            "\n",
            rows(
                "SELECT projection_id, generation, revision, status, aggregate_digest, updated_at"
                    + " FROM streamform.projection ORDER BY 1"));

    Ledger.AliasChange promoted = ledger.setCanonicalGeneration(Revisions.MODEL, 2);
    assertThat(
        List.of(
            promoted.previous().getAsInt(),
            promoted.generation(),
            promoted.projections(),
            promoted.previousProjections()),
        equalTo(List.of(1, 2, 2, 2)));
    assertThat(
        rows(
            "SELECT generation, revision, aggregate_values->>'revenue' FROM"
                + " streamform.canonical_projection ORDER BY window_key->>'merchant_id'"),
        equalTo(List.of("2 1 26", "2 1 12")));

    Ledger.AliasChange rolledBack = ledger.setCanonicalGeneration(Revisions.MODEL, 1);
    assertThat(
        List.of(rolledBack.previous().getAsInt(), rolledBack.generation()), equalTo(List.of(2, 1)));
    assertThat(
        rows(
            "SELECT generation, revision, aggregate_values->>'revenue' FROM"
                + " streamform.canonical_projection ORDER BY window_key->>'merchant_id'"),
        equalTo(List.of("1 2 26", "1 1 12")));

    assertThat(
        "no ledger row lost or changed",
        String.join(
            "\n",
            rows(
                "SELECT projection_id, revision, aggregate_digest, recorded_at FROM"
                    + " streamform.correction_ledger ORDER BY 1, 2")),
        equalTo(ledgerBefore));
    assertThat(
        "no projection lost or changed",
        String.join(
            "\n",
            rows(
                "SELECT projection_id, generation, revision, status, aggregate_digest, updated_at"
                    + " FROM streamform.projection ORDER BY 1")),
        equalTo(projectionsBefore));
    assertThat(
        rows(
            "SELECT generation, previous_generation, set_by FROM streamform.canonical_alias_history"
                + " ORDER BY set_at, generation"),
        equalTo(List.of("1 null first write", "2 1 alias set", "1 2 alias set")));
    assertThat(
        ledger.verify(Revisions.MODEL).summary(),
        equalTo("4 projections, 5 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  @Test
  void theAliasDoesNotMoveToAGenerationWithoutProjectionsUnlessAllowed() throws Exception {
    live.write(List.of(revision(7, 10, 1, "30", 1)));
    Ledger.EmptyGeneration refused =
        assertThrows(
            Ledger.EmptyGeneration.class, () -> ledger.setCanonicalGeneration(Revisions.MODEL, 3));
    assertThat(
        refused.getMessage(),
        equalTo(
            "generation 3 of hourly_revenue has no projection; projections per generation: 1: 1"));
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).getAsInt(), equalTo(1));
    assertThat(
        rows("SELECT count(*) FROM streamform.canonical_alias_history"), equalTo(List.of("1")));

    Ledger.AliasChange allowed = ledger.setCanonicalGeneration(Revisions.MODEL, 3, true);
    assertThat(allowed.projections(), equalTo(0));
    assertThat(rows("SELECT count(*) FROM streamform.canonical_projection"), equalTo(List.of("0")));
  }
}
