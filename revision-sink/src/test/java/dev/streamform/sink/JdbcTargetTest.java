package dev.streamform.sink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.beam.sdk.transforms.display.DisplayData;
import org.junit.jupiter.api.Test;

/**
 * A JDBC URL may carry secrets the driver reads from it ({@code sslpassword=}, user info): what a
 * runner's UI shows ({@link RevisionSink}'s display data) and what messages print never does.
 */
class JdbcTargetTest {
  private static final String KEY_SECRET = "sf-ssl-key-secret-4Zt";

  @Test
  void theSinksDisplayDataMasksPasswordsInTheUrl() {
    JdbcTarget target =
        JdbcTarget.of(
                "jdbc:postgresql://db.example.net:5432/ledger?sslmode=verify-full"
                    + "&sslpassword="
                    + KEY_SECRET
                    + "&ApplicationName=streamform")
            .withUser("writer");
    String shown = DisplayData.from(RevisionSink.to(target)).toString();
    // the check sees what it looks for: the rest of the URL is shown
    assertThat(shown, containsString("db.example.net:5432/ledger?sslmode=verify-full"));
    assertThat(shown, containsString("ApplicationName=streamform"));
    assertThat(shown, not(containsString(KEY_SECRET)));
    assertThat(target.describe(), not(containsString(KEY_SECRET)));
  }

  @Test
  void userInfoAndPasswordParametersAreMaskedInEveryMessage() {
    String userInfo =
        JdbcTarget.of("jdbc:postgresql://writer:" + KEY_SECRET + "@db:5432/ledger").describe();
    assertThat(userInfo, not(containsString(KEY_SECRET)));
    assertThat(userInfo, containsString("@db:5432/ledger"));
    String params =
        JdbcTarget.of("jdbc:postgresql://db/ledger?user=w&sslPassword=" + KEY_SECRET + "&ssl=true")
            .describe();
    assertThat(params, not(containsString(KEY_SECRET)));
    assertThat(params, containsString("user=w"));
    assertThat(params, containsString("ssl=true"));
    // a refused URL's message does not repeat it unmasked either
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> JdbcTarget.of("jdbc:mysql://u:" + KEY_SECRET + "@db/ledger"));
    assertThat(e.getMessage(), not(containsString(KEY_SECRET)));
    // nor one the driver would not parse, user info taken as a port
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> JdbcTarget.of("jdbc:postgresql://u:" + KEY_SECRET + "@db/ledger"));
    assertThat(e.getMessage(), not(containsString(KEY_SECRET)));
  }

  @Test
  void aPortOutside1To65535IsRefused() {
    for (String port : new String[] {"0", "99999", "abc", "", "-1"}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> JdbcTarget.of("jdbc:postgresql://db:" + port + "/ledger"));
      assertThat(e.getMessage(), containsString("(a port is 1–65535)"));
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> JdbcTarget.of("jdbc:postgresql://db/ledger?port=65536"));
    assertThat(e.getMessage(), containsString("port 65536 in"));
    assertThat(
        JdbcTarget.of("jdbc:postgresql://[::1]:65535,db/ledger").url(), containsString("[::1]"));
  }

  /**
   * With {@code reWriteBatchedInserts=true} the driver answers a batched insert with no row count
   * (SUCCESS_NO_INFO), which the revision writer's compare-and-set took for another writer's move:
   * every batch with two new windows failed after the whole retry time. Refused where the URL is
   * given, naming the option and the fix.
   */
  @Test
  void reWriteBatchedInsertsIsRefusedNamingTheFix() {
    for (String url :
        new String[] {
          "jdbc:postgresql://db/ledger?reWriteBatchedInserts=true",
          "jdbc:postgresql://db/ledger?ssl=false&reWriteBatchedInserts=TRUE"
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> JdbcTarget.of(url));
      assertThat(e.getMessage(), containsString("reWriteBatchedInserts=true"));
      assertThat(e.getMessage(), containsString("leave reWriteBatchedInserts out of the URL"));
    }
    assertThat(
        JdbcTarget.of("jdbc:postgresql://db/ledger?reWriteBatchedInserts=false").url(),
        containsString("reWriteBatchedInserts=false"));
  }
}
