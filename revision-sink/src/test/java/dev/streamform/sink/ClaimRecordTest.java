package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A claim records what it confirmed (ADR 0161): the generation, the revision, the alias's version
 * it read under its lock and the attempt it began; {@code effects verify} checks a send against
 * that record, not against timestamps.
 */
class ClaimRecordTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Schema OUTPUT =
      Schema.builder()
          .addFields(Revisions.KEY.getFields())
          .addFields(Revisions.VALUES.getFields())
          .build();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectsLedger effects;
  private EffectRule rule;
  private LedgerWriter writer;
  private Ledger ledger;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
    effects = new EffectsLedger(pool);
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(provider.url(), true, true));
    writer = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
    ledger = Ledger.at(pool);
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private Dispatcher dispatcher(Dispatcher.Hooks hooks) {
    EffectProvider p = new WebhookProvider(rule.provider(), Duration.ofSeconds(2));
    return new Dispatcher(
            pool, "d", Revisions.MODEL, Map.of("reward", p), Duration.ofSeconds(30), hooks)
        .withBackoff(Duration.ZERO, Duration.ZERO)
        .withReevaluation(Ledger.reevaluation(List.of(rule), OUTPUT));
  }

  private Ledger.AliasChange alias(int generation) throws Exception {
    return ledger.setCanonicalGeneration(
        AliasRequest.of(Revisions.MODEL, generation).withEffects(List.of(rule), OUTPUT));
  }

  private static String keyOf(long merchant) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, 10, 1, "0").logicalWindowId(), merchant);
  }

  private List<String> rows(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
    return out;
  }

  private void execute(String sql) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(sql);
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  private static final String CLAIMS =
      "SELECT confirmed_generation || ' ' || confirmed_revision || ' ' || alias_version || ' '"
          + " || attempt FROM streamform.effect_transition WHERE to_state = 'DISPATCHING' ORDER BY"
          + " attempt";

  /**
   * A correct run verifies clean: the claim confirmed generation 1 revision 2 under the alias's
   * first version. The same row changed by hand, as a buggy dispatcher would have recorded it, is
   * flagged, naming the effect, its window and key and the figures.
   */
  @Test
  void aClaimRecordsWhatItConfirmedAndATamperedRecordIsFlagged() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    writer.write(List.of(revision(7, 10, 2, "1300")));
    assertThat(dispatcher(new Dispatcher.Hooks() {}).runOnce(10).done(), equalTo(1));
    assertThat(rows(CLAIMS), contains("1 2 1 1"));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());

    // the claim says it confirmed revision 1 while it sent revision 2's values
    execute("UPDATE streamform.effect_transition SET confirmed_revision = 1 WHERE attempt = 1");
    List<String> problems = effects.verify(Revisions.MODEL).problems();
    assertThat(problems.toString(), problems, hasSize(1));
    assertThat(problems.get(0), containsString(keyOf(7).substring(0, 12)));
    assertThat(problems.get(0), containsString("merchant_id"));
    assertThat(problems.get(0), containsString("sent generation 1 revision 2"));
    assertThat(problems.get(0), containsString("attempt 1 confirmed generation 1 revision 1"));

    // a revision its window never had in that generation
    execute("UPDATE streamform.effect_transition SET confirmed_revision = 5 WHERE attempt = 1");
    assertThat(
        effects.verify(Revisions.MODEL).problems(),
        hasItem(containsString("generation 1 has no revision 5 of its window")));

    // a generation the alias did not give its key at the version the claim read
    execute(
        "UPDATE streamform.effect_transition SET confirmed_revision = 2, confirmed_generation ="
            + " 2 WHERE attempt = 1");
    assertThat(
        effects.verify(Revisions.MODEL).problems(),
        hasItem(
            containsString(
                "attempt 1 confirmed generation 2 but the alias at version 1 gave its key"
                    + " generation 1")));

    // an alias version the alias never had: a record is present, so it is no claim of before
    // the record, and is flagged, naming the window by its start too
    execute(
        "UPDATE streamform.effect_transition SET confirmed_generation = 1, alias_version = 99"
            + " WHERE attempt = 1");
    EffectsLedger.Verification v = effects.verify(Revisions.MODEL);
    assertThat(v.figures().get("claims that cannot be checked"), equalTo(null));
    assertThat(
        v.problems(),
        hasItem(
            containsString(
                "attempt 1 recorded alias version 99, which the alias never had (it is at"
                    + " version 1)")));
    assertThat(v.problems(), hasItem(containsString("(window 2026-08-30T10:00:00.000Z ")));
  }

  /**
   * A claim made before the ledger recorded confirmations (its columns null) is counted as
   * unchecked, not flagged.
   */
  @Test
  void aClaimMadeBeforeTheRecordCannotBeCheckedAndIsNotFlagged() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    assertThat(dispatcher(new Dispatcher.Hooks() {}).runOnce(10).done(), equalTo(1));
    execute(
        "UPDATE streamform.effect_transition SET confirmed_generation = NULL, confirmed_revision"
            + " = NULL, alias_version = NULL, attempt = NULL");
    EffectsLedger.Verification v = effects.verify(Revisions.MODEL);
    assertThat(v.problems(), empty());
    assertThat(v.figures().get("claims that cannot be checked"), equalTo(1));
  }

  /**
   * A claim racing an {@code alias set}: the claim holds the alias {@code FOR SHARE}, so the alias
   * set waits for it, then finds the effect dispatched on generation 1 and records a compensation
   * (payload changed), as the contract resolves the race. The run verifies clean.
   */
  @Test
  void aClaimRacingAnAliasSetVerifiesClean() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    writer.write(List.of(revision(7, 10, 1, "1300", 2)));
    Thread[] promotion = new Thread[1];
    Object[] promoted = new Object[1];
    Dispatcher.Hooks race =
        new Dispatcher.Hooks() {
          @Override
          public void beforeClaimCommit(List<String> effectKeys) {
            promotion[0] =
                new Thread(
                    () -> {
                      try {
                        promoted[0] = alias(2);
                      } catch (Exception e) {
                        promoted[0] = e;
                      }
                    });
            promotion[0].start();
            try {
              if (!Locks.awaitBlocked(pool, Duration.ofSeconds(5))) {
                throw new IllegalStateException("the alias set did not wait for the claim");
              }
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }
        };
    assertThat(dispatcher(race).runOnce(10).done(), equalTo(1));
    promotion[0].join(5_000);
    assertThat(String.valueOf(promoted[0]), promoted[0] instanceof Ledger.AliasChange);
    assertThat(((Ledger.AliasChange) promoted[0]).effects().compensations(), equalTo(1));
    assertThat(rows(CLAIMS), contains("1 1 1 1"));
    assertThat(rows("SELECT version FROM streamform.canonical_alias"), contains("2"));
    assertThat(effects.verify(Revisions.MODEL).problems(), empty());
    assertThat(provider.requests(keyOf(7)), equalTo(1));
  }

  /**
   * The fresh claim takes the alias {@code FOR SHARE} (ADR 0162): with an {@code alias set} to
   * generation 2 changed but not committed in another session (its statements, before its
   * re-evaluation reaches the effects), the claim waits for it, then finds generation 1's effect no
   * longer canonical and sends nothing. Without the lock it confirmed the effect against the alias
   * being replaced and sent it.
   */
  @Test
  void aFreshClaimWaitsForAnUncommittedAliasSetAndConfirmsAgainstTheNewAlias() throws Exception {
    writer.write(List.of(revision(7, 10, 1, "1200")));
    writer.write(List.of(revision(7, 10, 1, "1300", 2)));
    try (Connection aliasSet = pool.getConnection()) {
      aliasSet.setAutoCommit(false);
      try (Statement s = aliasSet.createStatement()) {
        s.executeQuery(
                "SELECT generation FROM streamform.canonical_alias WHERE model = '"
                    + Revisions.MODEL
                    + "' FOR UPDATE")
            .close();
        s.executeUpdate(
            "UPDATE streamform.canonical_alias SET generation = 2, set_by = 'alias set',"
                + " version = version + 1");
        s.executeUpdate(
            "INSERT INTO streamform.canonical_alias_history (model, generation,"
                + " previous_generation, set_by, version) SELECT model, 2, 1, 'alias set', version"
                + " FROM streamform.canonical_alias");
      }
      java.util.concurrent.CompletableFuture<Dispatcher.Report> pass =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return dispatcher(new Dispatcher.Hooks() {}).runOnce(10);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      boolean waited = Locks.awaitBlocked(pool, Duration.ofSeconds(3));
      aliasSet.commit();
      Dispatcher.Report r = pass.get(5, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(r.describe(), r.claimed(), equalTo(0));
      assertThat(r.describe(), r.waiting(), equalTo(1));
      assertThat(waited, equalTo(true));
    }
    assertThat(provider.requests(keyOf(7)), equalTo(0));
    assertThat(rows(CLAIMS), empty());
  }
}
