"""Length-generalisation problems (Kazemnejad et al.'s copy, reverse, addition, parity, sorting,
summation, polynomial evaluation, LEGO) for a causal decoder: the sequences, their answer masks,
the dataset and the config checks."""

import numpy as np
import pytest

from learnpe_jax.errors import ConfigError
from learnpe_jax.tasks.lengthgen import generate as gen


def _decode(inputs, target, mask):
  """(the full sequence, its answer tokens) of one example's decoder arrays."""
  used = int(np.flatnonzero(target)[-1]) + 1  # the last position with a real next token
  sequence = np.concatenate([inputs[:1], target[:used]])
  return sequence, target[mask.astype(bool)]


def _value(tokens):  # least-significant digit first
  return sum(int(t - 1) * 10**i for i, t in enumerate(tokens))


@pytest.mark.parametrize("problem", gen.PROBLEMS)
def test_every_example_is_its_problem_and_scores_only_the_answer(problem):
  data = gen.generate(problem, max_train_length=5, num_train=200, num_test_per_length=5, seed=3)
  assert data["test"]["inputs"].shape[1] == gen.sequence_length(problem, 10) - 1
  assert sorted(set(data["test"]["level"].tolist())) == list(range(10))
  assert data["train"]["level"].max() <= 4  # training lengths n ≤ L
  for split in ("train", "test"):
    d = data[split]
    for inputs, target, mask, level in zip(d["inputs"], d["target"], d["mask"], d["level"],
                                           strict=True):
      n = int(level) + 1
      sequence, answer = _decode(inputs, target, mask)
      assert len(sequence) == gen.sequence_length(problem, n)
      # The decoder input is the sequence shifted by one: target[t] = inputs[t + 1].
      np.testing.assert_array_equal(target[:len(sequence) - 2], inputs[1:len(sequence) - 1])
      sep = int(np.flatnonzero(sequence == gen.SEP)[0])
      np.testing.assert_array_equal(answer, sequence[sep + 1:])
      if problem == "copy":
        np.testing.assert_array_equal(answer, sequence[:n])
      elif problem == "reverse":
        np.testing.assert_array_equal(answer, sequence[:n][::-1])
      else:
        _check_answer(problem, n, sequence[:sep], answer)
      assert sequence.max() < gen.vocab_size(problem)


def _digits(tokens):
  return [int(t) - 1 for t in tokens]


def _signed(sign, magnitude_token):
  return (-1 if sign == gen.MINUS else 1) * (int(magnitude_token) - 1)


def _check_answer(problem, n, x, answer):
  """The answer recomputed from the problem's input by its definition (the module docstring)."""
  if problem == "addition":
    a, b = x[:n], x[n + 1:2 * n + 1]
    assert x[n] == gen.PLUS and len(answer) == n + 1
    assert _value(answer) == _value(a) + _value(b)
  elif problem == "parity":
    assert set(_digits(x)) <= {0, 1} and len(x) == n
    assert _digits(answer) == [sum(_digits(x)) % 2]
  elif problem == "sorting":
    assert _digits(answer) == sorted(_digits(x))
  elif problem == "summation":
    assert (x[1::2] == gen.PLUS).all() and len(x) == 2 * n - 1
    assert all(1 <= d <= 9 for d in _digits(x[::2]))
    assert _digits(answer) == [sum(_digits(x[::2])) % 10]
  elif problem == "polynomial":
    v = _signed(x[0], x[1])
    terms = x[2:].reshape(n, 3)
    assert -2 <= v <= 2 and all(-3 <= _signed(s, c) <= 3 and 0 <= d - 1 <= 3 for s, c, d in terms)
    assert _digits(answer) == [sum(_signed(s, c) * v ** (int(d) - 1) for s, c, d in terms) % 10]
  elif problem == "lego":
    clauses = x.reshape(n, 3)
    names = clauses[:, 0]
    assert len(set(names.tolist())) == n and names.min() > gen.MINUS
    assert clauses[0, 2] == 2 and (clauses[1:, 2] == names[:-1]).all()  # the digit 1, then a chain
    value, values = 1, []
    for _, sign, _ in clauses:
      value *= -1 if sign == gen.MINUS else 1
      values.append(value)
    assert answer.tolist() == [gen.MINUS if v < 0 else gen.PLUS for v in values[n // 2:]]
  else:
    raise AssertionError(problem)


def test_generation_is_seeded():
  a = gen.generate("reverse", 4, 50, 3, seed=1)
  b = gen.generate("reverse", 4, 50, 3, seed=1)
  c = gen.generate("reverse", 4, 50, 3, seed=2)
  assert all((a[s][k] == b[s][k]).all() for s in a for k in a[s])
  assert not (a["train"]["inputs"] == c["train"]["inputs"]).all()


def test_dataset_and_task(data_dir):
  from configs import length1d
  from learnpe_jax.tasks.registry import load_task
  config = length1d.get_config("smoke,problem=addition")
  config.data.data_dir = data_dir
  task = load_task(config)
  raw = gen.generate("addition", 4, 2000, 20, seed=0)
  for split in ("train", "test"):
    arrays = task.split(split)
    key = lambda inputs: sorted(x.tobytes() for x in inputs)
    assert key(arrays["tokens"].argmax(-1).astype(np.int8)) == key(raw[split]["inputs"])
    assert arrays["loss_mask"].sum() == raw[split]["mask"].sum()
  assert task.kind == "sequence" and task.num_outputs == gen.VOCAB_SIZE == gen.vocab_size("addition")
  assert task.level_names == tuple(f"n={n}" for n in range(1, 9))
  assert task.num_tokens == gen.sequence_length("addition", 8) - 1


def test_sequence_objective_is_exact_match_on_the_answer():
  import jax.numpy as jnp
  from learnpe_jax.training.objectives import per_example
  target = jnp.array([[3, 4, 5, 0], [3, 4, 5, 0]])
  mask = jnp.array([[0, 1, 1, 0], [0, 1, 1, 0]], jnp.float32)
  right = jnp.eye(13)[jnp.array([[7, 4, 5, 9], [3, 4, 6, 0]])] * 20.0  # row 1: answer wrong
  loss, score = per_example("sequence", right, {"target": target, "loss_mask": mask})
  assert score.tolist() == [1.0, 0.0]  # unscored positions may be wrong
  assert float(loss[0]) < 1e-6 and float(loss[1]) > 1.0


@pytest.mark.parametrize("override, field", [
    ({"causal": False}, "model.causal"),
    ({"readout": "last"}, "model.readout"),
])
def test_a_sequence_task_needs_a_decoder_read_at_every_token(data_dir, override, field):
  from configs import length1d
  from learnpe_jax.training import config_validation
  from learnpe_jax.tasks.registry import load_task
  config = length1d.get_config("smoke")
  config.data.data_dir = data_dir
  for key, value in override.items():
    config.model[key] = value
  config_validation.validate(config)
  with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
    config_validation.validate_with_task(config, load_task(config))


def test_a_decoder_refuses_a_pe_that_reads_later_tokens():
  from configs import grid2d
  from learnpe_jax.training import config_validation
  config = grid2d.get_config("smoke,pe=peg")
  config.model.causal = True
  with pytest.raises(ConfigError, match=r"model\.pe\.name='peg'.*model\.causal=True"):
    config_validation.validate(config)
  config.model.kind, config.model.pe = "lstm", grid2d.get_config("smoke").model.pe
  with pytest.raises(ConfigError, match=r"model\.causal"):
    config_validation.validate(config)


def test_lego_lengths_beyond_its_names_are_a_config_error():
  from learnpe_jax.tasks.lengthgen.task import validate_data
  validate_data({"problem": "lego", "max_train_length": gen.NAMES // 2})
  with pytest.raises(ConfigError, match=r"data\.max_train_length.*at most 26 for lego"):
    validate_data({"problem": "lego", "max_train_length": gen.NAMES // 2 + 1})
  with pytest.raises(ValueError, match="lego needs n ≤ 52"):
    gen.example("lego", gen.NAMES + 1, np.random.default_rng(0))


def test_the_first_three_problems_keep_their_vocabulary():
  """The problems added after copy, reverse and addition widen only their own one-hot tokens."""
  assert [gen.vocab_size(p) for p in gen.PROBLEMS] == [13, 13, 13, 13, 13, 13, 14, 66]


@pytest.mark.parametrize("problem", gen.PROBLEMS)
def test_the_answer_values_are_what_the_generator_writes(problem):
  """``answer_values``: as many answer tokens as ``example`` writes, each drawing as many distinct
  values as it says; chance is a blind uniform guess over them."""
  rng = np.random.default_rng(0)
  for n in (1, 2, 5, 9):
    values = gen.answer_values(problem, n)
    answers = []
    for _ in range(400):
      sequence, answer_start = gen.example(problem, n, rng)
      answers.append(sequence[answer_start:])
    answers = np.array(answers)
    assert answers.shape[1] == len(values), (problem, n)
    drawn = [len(set(column)) for column in answers.T]
    if problem == "sorting":  # a sorted answer's ends rarely take extreme digits: all ten in all
      assert len(set(answers.ravel())) == 10 and max(drawn) <= 10, (problem, n)
    else:
      assert drawn == list(values), (problem, n)
    assert gen.chance_exact_match(problem, n) == pytest.approx(np.prod(1.0 / np.array(values)))
  with pytest.raises(ValueError, match="problem must be one of"):
    gen.answer_values("division", 3)
