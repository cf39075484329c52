package dev.streamform.policies.project;

import java.util.List;

/**
 * A project cannot be used. Carries every problem found in one pass, in file and line order; {@link
 * #getMessage()} lists them one per line.
 */
public final class InvalidProjectException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<Problem> problems;

  public InvalidProjectException(List<Problem> problems) {
    super(describe(problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an invalid project has at least one problem");
    }
    this.problems = List.copyOf(problems);
  }

  /** Every problem found, in file and line order; never empty. */
  public List<Problem> problems() {
    return problems;
  }

  private static String describe(List<Problem> problems) {
    StringBuilder s = new StringBuilder();
    for (Problem p : problems) {
      s.append(p).append('\n');
    }
    return s.append(problems.size())
        .append(problems.size() == 1 ? " problem" : " problems")
        .toString();
  }
}
