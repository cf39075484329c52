package dev.streamform.cli;

import dev.streamform.sink.DatabaseRetry;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * What {@code streamform run} tells the operator on standard error about an outage of its database
 * (docs/decisions/0134): once when the sinks begin retrying, once when the database is back or they
 * gave up. Each failed attempt goes to the log only.
 */
final class OutageNotice implements DatabaseRetry.Listener {
  private final PrintWriter err;

  OutageNotice(PrintWriter err) {
    this.err = err;
  }

  private static String at(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  @Override
  public void unavailable(String database, Instant since, Instant until, String why) {
    say(
        "streamform run: the database "
            + database
            + " is unavailable since "
            + at(since)
            + " ("
            + why
            + "); retrying until "
            + at(until));
  }

  @Override
  public void back(String database, Instant since, Duration down) {
    say(
        "streamform run: the database "
            + database
            + " is back after "
            + DatabaseRetry.describe(down)
            + " (unavailable since "
            + at(since)
            + "); the run goes on, nothing is written twice");
  }

  @Override
  public void gaveUp(String database, Instant since, Duration retriedFor, String why) {
    say(
        "streamform run: gave up on the database "
            + database
            + " after retrying for "
            + DatabaseRetry.describe(retriedFor)
            + " (unavailable since "
            + at(since)
            + ": "
            + why
            + ")");
  }

  private void say(String line) {
    synchronized (err) {
      err.println(line);
      err.flush();
    }
  }
}
