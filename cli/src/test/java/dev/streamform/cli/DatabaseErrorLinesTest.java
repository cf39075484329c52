package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.UnknownHostException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * What a command says when the database of --jdbc-url cannot be used, beyond a refused connection:
 * each names the cause and the option that fixes it (found by a read-only audit of the revision
 * ledger: {@code cannot use the database …: nohost.invalid}, and {@code FATAL: role "root" does not
 * exist} with no word of --jdbc-user).
 */
class DatabaseErrorLinesTest {
  @Test
  void aHostThatDoesNotResolveIsNamedWithTheFix() {
    Exception e =
        new SQLException(
            "The connection attempt failed.", "08001", new UnknownHostException("nohost.invalid"));
    assertThat(
        ModelLedger.firstLine(e),
        is("no host is named nohost.invalid; give the right host in --jdbc-url"));
  }

  @Test
  void aRoleThatDoesNotExistNamesJdbcUser() {
    Exception e = new SQLException("FATAL: role \"root\" does not exist", "28000");
    assertThat(
        ModelLedger.firstLine(e),
        is(
            "FATAL: role \"root\" does not exist — give the database user with --jdbc-user"
                + " (without it, the user is your login name)"));
  }

  @Test
  void aDatabaseThatDoesNotExistSaysHowToNameAnother() {
    Exception e = new SQLException("FATAL: database \"nosuchdb\" does not exist", "3D000");
    assertThat(
        ModelLedger.firstLine(e),
        is(
            "FATAL: database \"nosuchdb\" does not exist — create it (CREATE DATABASE), or name"
                + " one that exists at the end of --jdbc-url"));
  }
}
