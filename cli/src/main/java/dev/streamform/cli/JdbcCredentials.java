package dev.streamform.cli;

import dev.streamform.sink.JdbcTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Who connects to the ledger's database: {@code --jdbc-user}, and the password from {@code
 * --jdbc-password-file} or the environment variable {@code STREAMFORM_JDBC_PASSWORD} — never from
 * the command line or the URL, where process lists and shell histories would show it.
 */
final class JdbcCredentials {
  @Option(
      names = "--jdbc-user",
      paramLabel = "USER",
      description = "the database user (runners-config/bin/postgres: postgres)")
  String user;

  @Option(
      names = "--jdbc-password-file",
      paramLabel = "FILE",
      description =
          "a file whose first line is the password; without it the environment variable "
              + JdbcTarget.PASSWORD_ENV
              + " is used when set")
  Path passwordFile;

  /**
   * Refuses credentials given without a database to use them on ({@code url} null): a usage error
   * rather than options silently dropped (docs/decisions/0087).
   */
  void refuseWithout(String url, CommandLine commandLine) {
    if (url != null || (user == null && passwordFile == null)) {
      return;
    }
    Map<String, Object> given = new LinkedHashMap<>();
    given.put("--jdbc-user", user);
    given.put("--jdbc-password-file", passwordFile);
    given.values().removeIf(Objects::isNull);
    boolean one = given.size() == 1;
    throw new ParameterException(
        commandLine,
        Streamform.typed(given)
            + (one ? " says" : " say")
            + " who connects to the database --jdbc-url names, and no --jdbc-url is given: add"
            + " --jdbc-url URL, or leave "
            + (one ? "out " + given.keySet().iterator().next() : "them out"));
  }

  /**
   * As {@link #refuseWithout}, and refuses a bad {@code url} or password file as {@link #target}
   * does: for a command that does other work before it uses the database, so a bad value is said
   * before anything starts.
   */
  void check(String url, CommandLine commandLine) {
    refuseWithout(url, commandLine);
    if (url != null) {
      target(url, commandLine);
    }
  }

  /** The database at {@code url} with these credentials; a bad URL or file is a usage error. */
  JdbcTarget target(String url, CommandLine commandLine) {
    JdbcTarget target;
    try {
      target = JdbcTarget.of(url);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(commandLine, "--jdbc-url: " + e.getMessage());
    }
    if (user != null) {
      target = target.withUser(user);
    }
    if (passwordFile != null) {
      if (Files.isDirectory(passwordFile)) {
        // readable to Files.isReadable, and unreadable when the pool opens (exit 1)
        throw new ParameterException(
            commandLine,
            "--jdbc-password-file: "
                + passwordFile
                + " is a folder; name the file whose first line is the password");
      }
      if (!Files.isReadable(passwordFile)) {
        throw new ParameterException(
            commandLine, "--jdbc-password-file: cannot read " + passwordFile);
      }
      target = target.withPasswordFile(passwordFile);
    }
    return target;
  }
}
