package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project file that cannot be read or listed is said in plain words — "permission denied", "is a
 * folder, not a file" — with the fix, never with a Java exception's class name. Tests run as root,
 * whom chmod 000 does not stop: they use what root also hits (a folder where a file belongs, a file
 * whose read fails in the kernel) or, for a folder that cannot be listed, a failing listing.
 */
class UnreadableFilesTest {
  @TempDir Path dir;

  @Test
  void theFileSystemsExceptionsAreSaidInPlainWords() {
    assertThat(FileErrors.reason(new NoSuchFileException("/p/a.yml")), is("does not exist"));
    assertThat(FileErrors.reason(new AccessDeniedException("/p/a.yml")), is("permission denied"));
    assertThat(
        FileErrors.reason(new FileSystemException("/p/a.yml", null, "Is a directory")),
        is("is a folder, not a file"));
    assertThat(
        FileErrors.reason(new FileSystemException("/p/a/b.yml", null, "Not a directory")),
        is("a part of its path is a file, not a folder"));
    assertThat(
        FileErrors.reason(new MalformedInputException(1)),
        is("is not UTF-8 text (a malformed sequence of 1 byte(s))"));
    assertThat(FileErrors.reason(new IOException("Input/output error")), is("Input/output error"));
    assertThat(FileErrors.cannotRead(new NoSuchFileException("/p/a.yml")), is("does not exist"));
    assertThat(
        FileErrors.cannotRead(new AccessDeniedException("/p/a.yml")),
        is("cannot be read: permission denied"));
    assertThat(
        FileErrors.line(
            new RuntimeException(
                "wrapped", new java.io.UncheckedIOException(new AccessDeniedException("/p/x")))),
        is("/p/x: permission denied"));
  }

  /** /proc/self/mem is a regular file whose read at byte 0 fails (EIO), for root as for anyone. */
  @Test
  void aProjectFileWhoseReadFailsNamesTheReasonWithoutTheExceptionsClass() throws Exception {
    ProjectFolder project = ProjectFolder.seed(dir);
    Files.delete(dir.resolve("sources.yml"));
    Files.createSymbolicLink(dir.resolve("sources.yml"), Path.of("/proc/self/mem"));

    List<String> problems = project.problems();

    assertThat(
        problems,
        contains("sources.yml: cannot be read: Input/output error — check the file's permissions"));
  }

  @Test
  void aModelsFolderThatCannotBeListedIsOneProblemAndNoQueryIsSaidMissing() throws Exception {
    ProjectFolder.seed(dir);
    InvalidProjectException refused =
        assertThrows(
            InvalidProjectException.class,
            () -> ProjectLoader.load(dir, refusing(folder -> folder.endsWith("models"))));
    // root may stat the query inside; a user without the folder's x bit may not: drop it, so the
    // query is as unknown to this test as to that user
    Files.delete(dir.resolve("models/customer_metrics.sql"));
    InvalidProjectException withoutQuery =
        assertThrows(
            InvalidProjectException.class,
            () -> ProjectLoader.load(dir, refusing(folder -> folder.endsWith("models"))));

    String listed = "models: cannot be listed: permission denied — check the folder's permissions";
    assertThat(strings(refused), contains(listed));
    assertThat(strings(withoutQuery), contains(listed));
  }

  /**
   * A project folder that cannot be listed is said to be so: its files were said to be missing
   * ("sources.yml: not found in … — create it"; found by a read-only audit of the command line).
   */
  @Test
  void aProjectFolderThatCannotBeListedIsSaidSo() throws Exception {
    ProjectFolder.seed(dir);
    InvalidProjectException refused =
        assertThrows(
            InvalidProjectException.class,
            () -> ProjectLoader.load(dir, refusing(folder -> folder.equals(dir))));
    assertThat(
        strings(refused),
        contains(dir + ": cannot be listed: permission denied — check the folder's permissions"));
  }

  /**
   * A fixtures/ folder that cannot be listed is a problem of the project: check said "ok" and test
   * "no fixtures" (found by a read-only audit of the command line).
   */
  @Test
  void aFixturesFolderThatCannotBeListedIsAProblem() throws Exception {
    ProjectFolder.seed(dir);
    Files.createDirectories(dir.resolve("fixtures"));
    InvalidProjectException refused =
        assertThrows(
            InvalidProjectException.class,
            () -> ProjectLoader.load(dir, refusing(folder -> folder.endsWith("fixtures"))));
    assertThat(
        strings(refused),
        contains("fixtures: cannot be listed: permission denied — check the folder's permissions"));
  }

  @Test
  void aFixtureThatIsAFolderSaysSoWithoutItsPathAsTheReason() throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    Path fixture = dir.resolve("fixtures/orders.yml");
    Files.createDirectories(fixture);

    InvalidProjectException refused =
        assertThrows(InvalidProjectException.class, () -> Fixture.load(project, fixture));

    assertThat(
        strings(refused),
        contains(
            "fixtures/orders.yml: cannot be read: is a folder, not a file"
                + " — give a file, not a folder"));
  }

  @Test
  void aLinearFileThatIsMissingSaysSoAndOneThatCannotBeReadDoesNotSayCreateIt() throws Exception {
    String decisions =
        "models:\n  customer_metrics:\n    key: [customer_id]\n    decisions:\n"
            + "      features_over: 1h\n      linear: models/risk.linear.yml\n";
    ProjectFolder project = ProjectFolder.seed(dir).models(decisions);

    List<String> missing = project.problems();
    Files.createDirectories(dir.resolve("models/risk.linear.yml"));
    List<String> folder = project.problems();

    assertThat(
        missing,
        contains(
            allOf(
                containsString("models/risk.linear.yml does not exist"),
                containsString("— create it with bias: <number>"),
                not(containsString(dir.toString())))));
    assertThat(
        folder,
        contains(
            allOf(
                containsString("models/risk.linear.yml cannot be read: is a folder, not a file"),
                containsString("— give a file, not a folder"),
                not(containsString("create it")))));
  }

  @Test
  void aKafkaPropertiesFileThatIsAFolderSaysSo() throws Exception {
    Path props = dir.resolve("kafka.properties");
    Files.createDirectories(props);

    InvalidProjectException refused =
        assertThrows(
            InvalidProjectException.class,
            () -> KafkaClientProperties.read(props, "kafka.properties"));

    assertThat(
        strings(refused),
        contains(
            "kafka.properties: cannot be read: is a folder, not a file"
                + " — give a file, not a folder"));
  }

  private static List<String> strings(InvalidProjectException e) {
    return e.problems().stream().map(Problem::toString).collect(Collectors.toList());
  }

  /**
   * A file source's data file that the file system will not let {@code run} read is a problem at
   * the source's {@code path:} line, in the words {@code run} refuses it with: {@code check} said
   * nothing of it. (Root reads a chmod-000 file, so the refusal is the opener's.)
   */
  @Test
  void aDataFileThatCannotBeReadIsAProblemAtItsPathLine() throws Exception {
    String sources = "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n";
    Path data = dir.resolve("payments.jsonl");
    Files.writeString(data, "{}\n");

    List<String> problems =
        SourcesFile.unreadableFiles(
                dir,
                sources,
                f -> {
                  throw new AccessDeniedException(f.toString());
                })
            .stream()
            .map(Problem::toString)
            .collect(Collectors.toList());

    assertThat(
        problems,
        contains(
            "sources.yml:4: source 'payments', key 'path': "
                + data.toAbsolutePath().normalize()
                + ": cannot be read: permission denied — check the file's permissions"));
    // a readable file is none
    assertThat(SourcesFile.unreadableFiles(dir, sources, Files::newInputStream), is(List.of()));
  }

  /** Lists folders as the file system does, except those {@code refused}: permission denied. */
  private static ProjectLoader.Listing refusing(java.util.function.Predicate<Path> refused) {
    return (folder, glob) -> {
      if (refused.test(folder)) {
        throw new AccessDeniedException(folder.toString());
      }
      return Files.newDirectoryStream(folder, glob);
    };
  }
}
