package dev.streamform.cli;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a {@code --from-savepoint} location can be seen to be missing (or a folder without {@code
 * _metadata}, docs/decisions/0230) before the job is submitted: only when the file system that will
 * read it is this machine's (the embedded Flink cluster, or a cluster at a loopback address) and
 * the location is a local path or a {@code file:} URI. A remote cluster reads its own file system,
 * and another scheme (s3, hdfs) is the cluster's to resolve: neither is checked here
 * (docs/decisions/0180).
 */
final class SavepointLocation {
  private SavepointLocation() {}

  /**
   * The local path of {@code location} when it can be checked here and does not exist; empty when
   * it exists or cannot be checked here. {@code flinkMaster} is Flink's option value: {@code
   * [local]}/{@code [auto]} for the embedded cluster, else {@code HOST:PORT}.
   */
  static Optional<Path> missing(String location, String flinkMaster) {
    Optional<Path> path = localPath(location, flinkMaster);
    return path.isPresent() && !Files.exists(path.get()) ? path : Optional.empty();
  }

  /**
   * The local path of {@code location} when it can be checked here and is a folder without a {@code
   * _metadata} file (what a savepoint's or retained checkpoint's folder holds), so no savepoint: a
   * cluster would fail the job. Empty otherwise; a file is taken as the metadata itself, as Flink
   * takes it (docs/decisions/0230).
   */
  static Optional<Path> withoutMetadata(String location, String flinkMaster) {
    Optional<Path> path = localPath(location, flinkMaster);
    return path.isPresent()
            && Files.isDirectory(path.get())
            && !Files.isRegularFile(path.get().resolve("_metadata"))
        ? path
        : Optional.empty();
  }

  private static Optional<Path> localPath(String location, String flinkMaster) {
    if (!readHere(flinkMaster)) {
      return Optional.empty();
    }
    Path path;
    try {
      if (location.regionMatches(true, 0, "file:", 0, 5)) {
        path = Path.of(URI.create(location));
      } else if (location.matches("[A-Za-z][A-Za-z0-9+.-]*://.*")) {
        return Optional.empty(); // another file system's: the cluster's to resolve
      } else {
        path = Path.of(location);
      }
    } catch (RuntimeException e) {
      return Optional.empty(); // not a path this machine can name: left to Flink, which says why
    }
    return Optional.of(path);
  }

  private static boolean readHere(String flinkMaster) {
    if (flinkMaster == null || flinkMaster.startsWith("[")) {
      return true; // the embedded cluster runs in this JVM
    }
    String host = flinkMaster.replaceFirst("^[a-zA-Z]+://", "");
    int colon = host.lastIndexOf(':');
    if (colon > 0 && !host.endsWith("]")) {
      host = host.substring(0, colon);
    }
    host = host.replace("[", "").replace("]", "").toLowerCase(Locale.ROOT);
    return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
  }
}
