package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The first {@code alias set} of a model finds no alias row to lock. Another transaction that makes
 * the row meanwhile (a second alias set, a first write) must not leave this one believing there was
 * no canonical generation before it: its history row and its answer name the generation it replaced
 * (ADR 0211; argued by the gates and rollout review).
 */
class AliasSetRaceTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;
  private Ledger ledger;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 4, 2_000);
    ledger = Ledger.at(pool);
    // projections of generations 1 and 2, written by shadow jobs: nothing canonical yet
    LedgerWriter shadow = LedgerWriter.shadow(pool, Duration.ofSeconds(30));
    shadow.write(List.of(revision(7, 10, 1, "100", 1), revision(7, 10, 1, "200", 2)));
  }

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void anAliasSetRacingTheFirstOneNamesTheGenerationItReplaced() throws Exception {
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).isPresent(), equalTo(false));
    // the first alias set, by hand: generation 1 made canonical, not committed yet
    Connection first = pool.getConnection();
    first.setAutoCommit(false);
    try (PreparedStatement s =
        first.prepareStatement(
            "INSERT INTO streamform.canonical_alias (model, generation, set_by) VALUES (?, 1,"
                + " 'alias set')")) {
      s.setString(1, Revisions.MODEL);
      s.executeUpdate();
    }
    try (PreparedStatement s =
        first.prepareStatement(
            "INSERT INTO streamform.canonical_alias_history (model, generation,"
                + " previous_generation, set_by, version) VALUES (?, 1, NULL, 'alias set', 1)")) {
      s.setString(1, Revisions.MODEL);
      s.executeUpdate();
    }
    // the second reads no alias, then waits on the first's row at its upsert
    CompletableFuture<Ledger.AliasChange> second =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ledger.setCanonicalGeneration(Revisions.MODEL, 2);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(
        "the second alias set waits",
        Locks.awaitBlocked(pool, Duration.ofSeconds(10)),
        equalTo(true));
    first.commit();
    first.close();

    Ledger.AliasChange change = second.get(20, TimeUnit.SECONDS);
    assertThat(change.previous().isPresent() ? change.previous().getAsInt() : -1, equalTo(1));
    assertThat(
        Tables.rows(
            pool,
            "SELECT generation, previous_generation, version FROM"
                + " streamform.canonical_alias_history ORDER BY version"),
        equalTo(List.of("1 null 1", "2 1 2")));
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).getAsInt(), equalTo(2));
  }
}
