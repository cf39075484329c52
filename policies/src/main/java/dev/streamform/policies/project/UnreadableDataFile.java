package dev.streamform.policies.project;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A data file of a file source that a run cannot read as JSON lines, found before the run starts by
 * reading its first bytes: the file system refused it ("cannot be read: permission denied") or it
 * is saved as UTF-16 or UTF-32 ({@link NotUtf8.WideEncoding}, ADR 0131). {@code run} refuses it in
 * one line ({@link #refusal}); {@code check} reports it at the source's {@code path:} line as
 * {@link #problem} and {@link #fix}: the same words, from this one piece of code.
 *
 * @param problem the file and what is wrong with it, e.g. {@code /p/payments.jsonl: cannot be read:
 *     permission denied}
 * @param fix what to do, e.g. {@code check the file's permissions}
 */
public record UnreadableDataFile(String problem, String fix) {
  /** How a file is opened: the file system's, or in a test one that fails. */
  public interface Opener {
    InputStream open(Path file) throws IOException;
  }

  /**
   * Why {@code file}, opened by {@code opener}, cannot be read as JSON lines, or empty when its
   * first bytes read and show no wide encoding (a line that is not UTF-8 is that line's problem).
   */
  public static Optional<UnreadableDataFile> of(Path file, Opener opener) {
    byte[] head;
    try (InputStream in = opener.open(file)) {
      head = in.readNBytes(4);
    } catch (IOException e) {
      return Optional.of(
          new UnreadableDataFile(
              file + ": " + FileErrors.cannotRead(e),
              FileErrors.fix(
                  e,
                  "give a path: that names a file of the project",
                  "check that the file is readable by this user")));
    }
    return NotUtf8.wideEncoding(head)
        .map(e -> new UnreadableDataFile(e.problem(file), e.fix(file)));
  }

  /** {@link #problem} and {@link #fix} in one line, as {@code run} refuses the file. */
  public String refusal() {
    return problem + " — " + fix;
  }
}
