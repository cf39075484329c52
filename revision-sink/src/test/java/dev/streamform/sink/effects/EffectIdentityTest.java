package dev.streamform.sink.effects;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import dev.streamform.core.digest.RevisionIdentity;
import java.util.List;
import org.junit.jupiter.api.Test;

class EffectIdentityTest {
  private static final String WINDOW = "a".repeat(64);

  @Test
  void theEffectKeyIsTheHashOfItsCanonicalText() {
    assertThat(
        RevisionIdentity.canonical(List.of("effect", "reward", WINDOW, "m-1")),
        equalTo("[\"effect\",\"reward\",\"" + WINDOW + "\",\"m-1\"]"));
    assertThat(
        EffectIdentity.effectKey("reward", WINDOW, "m-1"),
        equalTo(RevisionIdentity.hash(List.of("effect", "reward", WINDOW, "m-1"))));
    assertThat(EffectIdentity.effectKey("reward", WINDOW, "m-1"), equalTo(VECTOR));
  }

  @Test
  void aStringSubjectAndANumberSubjectAreDifferentEffects() {
    assertThat(
        EffectIdentity.effectKey("reward", WINDOW, 7L),
        not(equalTo(EffectIdentity.effectKey("reward", WINDOW, "7"))));
  }

  // sha256 of the text above, computed independently (sha256sum)
  static final String VECTOR = "80186c51e464909ac6bbd61539f2c0b0fb61780c700610196024fc06abf181a8";
}
