package dev.streamform.sink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An outage lasts while a writer retries in it: a call that saw the database unavailable and then
 * ended otherwise than by success or giving up (an error no retry cures, as a failover's read-only
 * standby gives) leaves no outage behind for a later blip to be measured from. Needs no database.
 */
class DatabaseRetryTest {
  private static SQLException lost() {
    return new SQLException("An I/O error occurred while sending to the backend.", "08006");
  }

  @Test
  void aBlipAfterACallEndedByAnotherErrorIsRiddenOutAsAnOutageOfItsOwn() throws Exception {
    String db = "jdbc:postgresql://127.0.0.1:1/stale-outage as postgres";
    Duration retryFor = Duration.ofMillis(500);
    List<String> told = new CopyOnWriteArrayList<>();
    try (AutoCloseable l =
        DatabaseRetry.listen(
            new DatabaseRetry.Listener() {
              @Override
              public void unavailable(String database, Instant since, Instant until, String why) {
                if (database.equals(db)) {
                  told.add("unavailable");
                }
              }

              @Override
              public void back(String database, Instant since, Duration down) {
                if (database.equals(db)) {
                  told.add("back");
                }
              }

              @Override
              public void gaveUp(String database, Instant since, Duration retried, String why) {
                if (database.equals(db)) {
                  told.add("gave up");
                }
              }
            })) {
      // a lost connection, then an error no retry cures: the call fails with it
      int[] first = {0};
      SQLException readOnly =
          assertThrows(
              SQLException.class,
              () ->
                  new DatabaseRetry(db, retryFor)
                      .call(
                          "writing 1 record",
                          () -> {
                            if (first[0]++ == 0) {
                              throw lost();
                            }
                            throw new SQLException(
                                "ERROR: cannot execute INSERT in a read-only transaction", "25006");
                          }));
      assertThat(readOnly.getSQLState(), equalTo("25006"));
      // the database is fine for a while, longer than the retry time
      for (int i = 0; i < 3; i++) {
        new DatabaseRetry(db, retryFor).call("writing", () -> "ok");
      }
      Thread.sleep(retryFor.toMillis() + 300);
      // a blip: one lost connection, then the write succeeds
      int[] blip = {0};
      DatabaseRetry.Result<String> done =
          new DatabaseRetry(db, retryFor)
              .call(
                  "writing 1 record",
                  () -> {
                    if (blip[0]++ == 0) {
                      throw lost();
                    }
                    return "ok";
                  });
      assertThat(done.retries(), equalTo(1));
      assertThat(told, equalTo(List.of("unavailable", "unavailable", "back")));
    }
  }
}
