#!/usr/bin/env python3
# tests/replicas/engine_limits.py: what each outside engine's rollout shows the model of a search, and what its own
# reward gives an answer — ported from their code (Python 3 standard library; the Qwen tokenizer through
# tests/replicas/qwen_cut.mjs) and driven by tests/engine-limits.test.ts with the oracle's searches against a real
# `searchgym gym serve` over loopback. The HTTP clients are engines.py's (cited there). Knows no world: the spec names
# the server, the launch settings and, per question, the oracle's searches, the evidence sentences each should show, and
# the answer; it reports how many evidence-bearing searches keep their sentences visible after the engine's cut (under the
# engine's stock settings and the shipped ones) and the reward of a scripted gold policy and of a wrong answer.
#
# Search-R1 a14dc3a
#   search_r1/llm_agent/generation.py:234,253     one search per turn for every active rollout: one batched POST per turn
#   search_r1/llm_agent/generation.py:391         observation f'\n\n<information>{search_results.pop(0).strip()}</information>\n\n'
#   search_r1/llm_agent/generation.py:80-89       tokenizer(next_obs, add_special_tokens=False); ids[:, :max_obs_length]
#                                                  (padding='longest' pads on the right: each row keeps its own head)
#   search_r1/llm_agent/generation.py:61-66       a response is cut after its first </search> or </answer>
#   train_grpo.sh:39,81                            stock data.max_obs_length=500, retriever.topk=3
#   verl/utils/dataset/rl_dataset.py:128-129      the prompt goes through the chat template (add_generation_prompt=True)
#   verl/trainer/main_ppo.py:25-29                reward fn by data_source: nq ... bamboogle -> qa_em.compute_score_em, else
#                                                  NotImplementedError
#   verl/trainer/main_ppo.py:57-78                solution_str = tokenizer.decode(valid prompt ids + valid response ids)
#   verl/utils/reward_score/qa_em.py:19-46        normalize_answer, em_check
#   verl/utils/reward_score/qa_em.py:62-82        extract_solution: the last <answer> match, None unless there are >= 2
#   verl/utils/reward_score/qa_em.py:85-110       compute_score_em: 0 without an answer, score on EM, else format_score (0)
# verl b178a3c
#   verl/tools/search_tool.py:178                 topk = config.get("topk", 3) (the tool yaml's topk)
#   verl/tools/search_tool.py:252-267             ToolResponse(text=result_text) from perform_single_search_batch
#   verl/experimental/agent_loop/tool_agent_loop.py:444-452  text cut to max_tool_response_length characters (middle:
#                                                  head half + "...(truncated)..." + tail half)
#   verl/trainer/config/rollout/rollout.yaml:175,178  stock max_tool_response_length 256, tool_response_truncate_side middle
#   verl/workers/reward_manager/naive.py:73-90    solution_str = decode(valid response ids, skip_special_tokens=True)
#   verl/utils/reward_score/__init__.py:93-104    searchR1_nq ... searchR1_bamboogle -> search_r1_like_qa_em.compute_score
#   verl/utils/reward_score/search_r1_like_qa_em.py:23-50   normalize_answer, em_check
#   verl/utils/reward_score/search_r1_like_qa_em.py:66-93   extract_solution (last match, None without one), count_answer_tags
#   verl/utils/reward_score/search_r1_like_qa_em.py:96-128  compute_score: EM -> 1 (1/4 past 10 answer tags), else 0
# AReaL/ASearcher 813e804 (paths under AReaL/)
#   ASearcher/utils/search_tool.py:12-22          load_metadata: id2info by str(id) from the dataset JSONL
#   ASearcher/utils/search_tool.py:44-60          search: {"queries": [query], "topk": self.topk, "return_scores": False}
#   ASearcher/utils/search_tool.py:84-111         reward of every action: compute_score_f1(action, answer list)
#   ASearcher/train/search_agent.py:134-141       tool call = last match of a tag, rebuilt as "<answer>{match}</answer>"
#   ASearcher/train/search_agent.py:143-158       search observation "<information>\n" + "[Doc {k}]({url}):\n" + doc[:5000]
#                                                  joined by "\n\n" + "\n</information>", documents[:topk]
#   ASearcher/train/asearcher.py:97-142           score = last reward * format_reward; -0.5 if the answer names
#                                                  "question"/"invalid"/"appropriate"/"valid" (valid_inst_ratio 1.0)
#   ASearcher/configs/asearcher_local.yaml:156-157  reward_type F1, stock topk 5
#   ASearcher/utils/rewards.py:35-41,96-116,163-238  bool_mapping, extract_solution (last match), normalize_text,
#                                                  f1_score (token sets), compute_score_f1 (max over the answer list)
#   ASearcher/utils/rewards.py:259-272            correct_format_fn of every generated turn
import json
import os
import re
import string
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engines import AsearcherClient, search_r1_batch_search, verl_search_tool_text, verl_truncate  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# The engines' stock settings (cited above).
STOCK = {
    "search-r1": {"topk": 3, "max_obs_length": 500, "max_turns": 2, "max_prompt_length": 4096},  # train_grpo.sh:36,39,79,81
    # rollout.yaml:175; search_tool.py:178; search_multiturn_grpo.yaml:22 and the run script's :26 (max_response_length)
    "verl": {"topk": 3, "max_tool_response_length": 256, "max_assistant_turns": 2, "max_response_length": 3000},
    "asearcher": {"topk": 5, "doc_chars": 5000, "max_turns": 32, "max_tokens_per_mb": 8000},  # asearcher_local.yaml:43,153,157
}


def qwen_cut(pairs):
    """[(text, n)] -> [(tokens, text of the first n tokens)] with the Qwen tokenizer: one node process, each distinct
    text encoded once."""
    texts = {}
    for text, n in pairs:
        texts.setdefault(text, set()).add(n)
    order = [[t, sorted(ns)] for t, ns in texts.items()]
    if not order:
        return []
    r = subprocess.run(["node", os.path.join(HERE, "qwen_cut.mjs")], input=json.dumps(order), capture_output=True, text=True, check=True)
    done = {t: (tokens, dict(zip(ns, kept))) for (t, ns), (tokens, kept) in zip(order, json.loads(r.stdout))}
    return [(done[t][0], done[t][1][n]) for t, n in pairs]


# ---- Search-R1 reward (verl/utils/reward_score/qa_em.py) ------------------------------------------------------------
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def em_check(prediction, golden_answers):
    if isinstance(golden_answers, str):
        golden_answers = [golden_answers]
    normalized_prediction = normalize_answer(prediction)
    score = 0
    for golden_answer in golden_answers:
        golden_answer = normalize_answer(golden_answer)
        if golden_answer == normalized_prediction:
            score = 1
            break
    return score


def search_r1_extract_solution(solution_str):
    matches = list(re.finditer(r"<answer>(.*?)</answer>", solution_str, re.DOTALL))
    if len(matches) <= 1:
        return None
    return matches[-1].group(1).strip()


def search_r1_compute_score_em(solution_str, ground_truth, method="strict", format_score=0.0, score=1.0):
    answer = search_r1_extract_solution(solution_str=solution_str)
    if answer is None:
        return 0
    if em_check(answer, ground_truth["target"]):
        return score
    return format_score


def search_r1_select_rm_score_fn(data_source):
    if data_source in ["nq", "triviaqa", "popqa", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle"]:
        return search_r1_compute_score_em
    raise NotImplementedError


# ---- verl reward (verl/utils/reward_score/search_r1_like_qa_em.py via default_compute_score) -----------------------
def verl_extract_solution(solution_str):
    matches = list(re.finditer(r"<answer>(.*?)</answer>", solution_str, re.DOTALL))
    if len(matches) < 1:
        return None
    return matches[-1].group(1).strip()


def verl_compute_score(solution_str, ground_truth, method="strict", format_score=0.0, score=1.0):
    answer = verl_extract_solution(solution_str=solution_str)
    open_count, close_count = solution_str.count("<answer>"), solution_str.count("</answer>")
    if answer is None:
        return 0
    if em_check(answer, ground_truth["target"]):
        if open_count > 10 or close_count > 10:
            return score / 4
        return score
    return format_score


def verl_default_compute_score(data_source, solution_str, ground_truth, extra_info=None):
    if data_source in ["searchR1_nq", "searchR1_triviaqa", "searchR1_popqa", "searchR1_hotpotqa", "searchR1_2wikimultihopqa", "searchR1_musique", "searchR1_bamboogle"]:
        return verl_compute_score(solution_str, ground_truth)
    raise NotImplementedError(f"Reward function is not implemented for {data_source=}")


# ---- ASearcher reward (ASearcher/utils/rewards.py) -------------------------------------------------------------------
def bool_mapping(s):
    if s == "True":
        return "yes"
    if s == "False":
        return "no"
    return s


def asearcher_extract_solution(solution_str):
    matches = list(re.finditer(r"<answer>(.*?)</answer>", solution_str, re.DOTALL))
    if len(matches) <= 0:
        return None
    return matches[-1].group(1).strip()


def normalize_text(text):
    for punct in string.punctuation:
        text = text.replace(punct, " ")
    text = re.sub(r"\s+", " ", text)
    return text.strip().lower()


def f1_score(answer_content, gt):
    # The Chinese-character branch (rewards.py:187-202) never applies to these worlds' English answers; a gt with CJK
    # characters is refused rather than scored differently.
    if any("\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in gt):
        raise ValueError("CJK ground truth: rewards.py's character-set F1 is not ported")
    answer_content = normalize_text(bool_mapping(answer_content))
    gt = normalize_text(bool_mapping(gt))
    pred_tokens = set(answer_content.split())
    gt_tokens = set(gt.split())
    if not gt_tokens or not pred_tokens:
        return 0
    common_tokens = pred_tokens & gt_tokens
    precision = len(common_tokens) / len(pred_tokens)
    recall = len(common_tokens) / len(gt_tokens)
    if precision + recall > 0:
        return 2 * (precision * recall) / (precision + recall)
    return 0


def asearcher_compute_score_f1(solution_str, ground_truth, method="strict", format_score=0.0, score=1.0):
    if isinstance(ground_truth, list):
        answer = asearcher_extract_solution(solution_str=solution_str)
        return answer, max([asearcher_compute_score_f1(solution_str, g)[1] for g in ground_truth])
    answer = asearcher_extract_solution(solution_str=solution_str)
    if answer is None:
        return None, 0
    return answer, f1_score(answer, ground_truth)


def correct_format_fn(idx, s):
    return all(
        [
            s.count("<search>") == s.count("</search>"),
            s.count("<access>") == s.count("</access>"),
            s.count("<answer>") == s.count("</answer>"),
            s.count("<search>") + s.count("<access>") + s.count("<answer>") <= 1,
            s.count("Assistant") == s.count("assistant") == 0,
            s.count("</think>") <= 1,
        ]
    )


def load_metadata(dataset_path):
    data = [json.loads(ff) for ff in open(dataset_path)]
    for d in data:
        if "idx" in d:
            d["idx"] = str(d["idx"])
        elif "qid" in d:
            d["idx"] = str(d["qid"])
        else:
            d["idx"] = str(d["id"])
    return {d["idx"]: d for d in data}


def asearcher_consume_llm_response(completion_text):
    tool_calls = []
    for pattern in [r"<search>(.*?)</search>", r"<access>(.*?)</access>", r"<answer>(.*?)</answer>"]:
        matches = re.findall(pattern, completion_text, re.DOTALL)
        if matches:
            tool_calls.append(str(pattern.replace("(.*?)", matches[-1])))
    return tool_calls


def asearcher_search_text(documents, urls, topk, doc_chars):
    documents = documents[:topk]
    urls = urls[:topk]
    if len(documents) > 0:
        t = "[Doc {doc_id}]({url}):\n"
        return "<information>\n" + "\n\n".join([t.format(doc_id=str(k + 1), url=url) + doc[:doc_chars] for k, (doc, url) in enumerate(zip(documents, urls))]) + "\n</information>"
    return "<information>\nNo search results are found.\n</information>"


# ---- the scripted policy's turns -------------------------------------------------------------------------------------
# Each builder returns the episode as pieces in order (what the engine's context holds, special tokens written out), so
# the same pieces give the text its reward reads and, through the tokenizer, the token counts its limits apply to.
def think(i):
    return f"<think>\nStep {i + 1}: look the next fact up.\n</think>\n"


QWEN_SYSTEM = "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"


def search_r1_pieces(prompt, turns, answer):
    """prompt (chat template, rl_dataset.py:128-129) + per search the response up to </search> (generation.py:61-66)
    and its cut observation, then the answer turn; main_ppo's RewardManager decodes them all, special tokens kept."""
    out = [QWEN_SYSTEM + f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"]
    for i, (query, obs) in enumerate(turns):
        out += [think(i) + f"<search> {query} </search>", obs]
    return out + [think(len(turns)) + f"<answer> {answer} </answer><|im_end|>"]


def verl_pieces(turns, answer):
    """The agent loop's response: assistant turns with hermes tool calls and tool turns as Qwen's chat template renders
    them. The reward reads it decoded with skip_special_tokens=True (naive.py:75): <|im_start|>/<|im_end|> dropped."""
    out = []
    for i, (query, shown) in enumerate(turns):
        call = json.dumps({"name": "search", "arguments": {"query_list": [query]}}, ensure_ascii=False)
        out += [think(i) + f"<tool_call>\n{call}\n</tool_call><|im_end|>\n", f"<|im_start|>user\n<tool_response>\n{shown}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"]
    return out + [think(len(turns)) + f"<answer> {answer} </answer><|im_end|>"]


def verl_response_str(pieces):
    return "".join(pieces).replace("<|im_start|>", "").replace("<|im_end|>", "")


ASEARCHER_PROMPT = (  # ASearcher/train/prompts.py:2 SEARCH_ONLY_PROMPT_TEMPLATE with VALID_PROMPT (asearcher.py:172-176)
    "A conversation between User and Assistant. The user asks a question, and the Assistant answers it. The Assistant analyzes the given question and information in the mind, "
    "retains important relevant information, calls a search engine to find necessary information, accesses web pages with certain urls, and provides the user with the answer. "
    "The Assistant conducts search by <search> query </search> and the top search results will be returned between <information> and </information>.  The reasoning processes are "
    "enclosed within <think> </think>. Finally, the Assistant provides answer inside <answer> and </answer>, i.e. <answer> answer here </answer>. If there are multiple queries, "
    "ensure all answers are enclosed within <answer> </answer>, seperated with comma. You should try to find the most likely answer.  \n\nUser: \n\n{question}. \n\nThe "
    "language of your answer should align with the question. \n\nAssistant: \n<think>\n"
)


def asearcher_pieces(question, turns, answer):
    """[(kind, text)]: the prompt, then per search the generated turn (the prompt left a <think> open), the search
    observation's record ("\n\n" + text + "\n<think>\n", search_agent.py:105) and the summary turn that stops at
    </think> (:117), then the answer turn (asearcher.py:97-130)."""
    out = [("prompt", ASEARCHER_PROMPT.format(question=question))]
    for i, (query, text) in enumerate(turns):
        out.append(("gen", (f"Step {i + 1}: look the next fact up.\n</think>\n" if i == 0 else "\n") + f"<search> {query} </search>"))
        out.append(("tool", "\n\n" + text + "\n<think>\n"))
        out.append(("gen", "The results are read.\n</think>"))
    out.append(("gen", f"\n<answer> {answer} </answer>"))
    return out


def asearcher_episode_score(gens, qid, id2info):
    """The score the episode ends with: the reward of the last tool step (search_tool.py:84-111) times the format
    reward of every generated turn, -0.5 for an answer calling the question invalid (asearcher.py:117-142)."""
    score = 0
    for g in gens:
        calls = asearcher_consume_llm_response(g)
        if not calls:
            continue
        action = calls[0]
        gt = id2info[qid.split("@")[0]]["answer"]
        gt = [str(x) for x in gt] if isinstance(gt, (list, tuple)) else str(gt)
        _, score = asearcher_compute_score_f1(action, gt, method="strict")
    format_reward = float(all(correct_format_fn(i, g) for i, g in enumerate(gens)))
    score = (score or 0) * format_reward
    pred = None
    m = re.findall(r"<answer>(.*?)</answer>", "".join(gens), re.DOTALL)
    if m:
        pred = m[-1].strip()
    if pred is not None and any(c in pred for c in ["question", "invalid", "appropriate", "valid"]):
        score = -0.5
    return score


def qwen_count(texts):
    """Qwen token counts of each text (add_special_tokens=False), each distinct text encoded once."""
    distinct = list(dict.fromkeys(texts))
    if not distinct:
        return []
    r = subprocess.run(["node", os.path.join(HERE, "qwen_cut.mjs")], input=json.dumps([[t, []] for t in distinct]), capture_output=True, text=True, check=True)
    n = {t: c[0] for t, c in zip(distinct, json.loads(r.stdout))}
    return [n[t] for t in texts]


def fits(engine, st, pieces, count):
    """Whether the engine's turn and token limits let the episode reach its answer (token counts summed over pieces)."""
    if engine == "search-r1":
        # generation.py:234 max_turns turns with a search each, then the answer; the rolling input is cut to the last
        # max_prompt_length tokens (:107-115): the question must still be in it when the answer is written.
        searches = (len(pieces) - 2) // 2
        return searches <= st["max_turns"] and sum(count[:-1]) <= st["max_prompt_length"]
    if engine == "verl":
        # tool_agent_loop.py:254-256,360: max_assistant_turns (the answer turn counts); a response reaching response_length
        # tokens ends the episode (assistant turns and tool outputs alike).
        searches = (len(pieces) - 1) // 2
        return searches + 1 <= st["max_assistant_turns"] and sum(count) < st["max_response_length"]
    # asearcher.py:97,109: at most max_turns generated turns (search_agent.py:84-85 counts every llm_gen record); no
    # generation once input + max_new_tokens (asearcher_local.yaml:30, 1024) reaches max_tokens_per_mb.
    gens = [k for k, _ in pieces if k == "gen"]
    if len(gens) > st["max_turns"]:
        return False
    used = 0
    for (kind, _), c in zip(pieces, count):
        if kind == "gen" and used + 1024 >= st["max_tokens_per_mb"]:
            return False
        used += c
    return True


# ---- the run ---------------------------------------------------------------------------------------------------------
def wrong(answer):
    return f"not {answer}"


def visible_all(sentences, text, escape=False):
    if escape:
        sentences = [json.dumps(s, ensure_ascii=False)[1:-1] for s in sentences]
    return all(s in text for s in sentences)


def run(spec):
    engine = spec["engine"]
    qs = spec["questions"]
    settings = {"stock": STOCK[engine], "shipped": spec["shipped"]}
    report = {"engine": engine, "settings": settings, "questions": len(qs), "searches": sum(len(q["searches"]) for q in qs)}
    shown_of = {}
    # Per setting: every search's observation as the engine renders it, then cut; one fetch per distinct topk.
    fetched = {}  # topk -> [[(docs_text_or_obj, urls)] per question]
    for name in ("stock", "shipped"):
        k = settings[name]["topk"]
        if k in fetched:
            continue
        if engine == "search-r1":
            # One POST per turn holding every active question's query of that turn, as run_llm_loop does.
            per_q = [[None] * len(q["searches"]) for q in qs]
            turn = 0
            while True:
                active = [(i, q["searches"][turn]["query"]) for i, q in enumerate(qs) if turn < len(q["searches"])]
                if not active:
                    break
                passages = search_r1_batch_search(spec["url"], [a[1] for a in active], k)
                for (i, _), p in zip(active, passages):
                    per_q[i][turn] = p
                turn += 1
            fetched[k] = per_q
        elif engine == "verl":
            fetched[k] = [[verl_search_tool_text(spec["url"], [s["query"]], k)[0] for s in q["searches"]] for q in qs]
        else:
            c = AsearcherClient(spec["addr_dir"])
            per_q = []
            for q in qs:
                row = []
                for s in q["searches"]:
                    r = c.query({"queries": [s["query"]], "topk": k, "return_scores": False})[0]
                    row.append((r["documents"], r["urls"]))
                per_q.append(row)
            fetched[k] = per_q
    if engine == "search-r1":
        # Every observation of both settings through the tokenizer at once.
        obs_of = {name: [[f"\n\n<information>{p.strip()}</information>\n\n" for p in row] for row in fetched[settings[name]["topk"]]] for name in ("stock", "shipped")}
        pairs = [(o, settings[name]["max_obs_length"]) for name in ("stock", "shipped") for row in obs_of[name] for o in row]
        cuts = iter(qwen_cut(pairs))
    for name in ("stock", "shipped"):
        st = settings[name]
        raw = fetched[st["topk"]]
        if engine == "search-r1":
            obs = obs_of[name]
            cut = [next(cuts) for row in obs for _ in row]
            it = iter(cut)
            shown = [[next(it)[1] for _ in row] for row in obs]
            tokens = [c[0] for c in cut]
            report.setdefault("obs_tokens", {})[name] = {"p50": sorted(tokens)[len(tokens) // 2], "max": max(tokens), "over": sum(1 for t in tokens if t > st["max_obs_length"])}
        elif engine == "verl":
            shown = [[verl_truncate(t, st["max_tool_response_length"], "middle") for t in row] for row in raw]
            lens = [len(t) for row in raw for t in row]
            report.setdefault("obs_chars", {})[name] = {"p50": sorted(lens)[len(lens) // 2], "max": max(lens), "over": sum(1 for n in lens if n > st["max_tool_response_length"])}
        else:
            shown = [[asearcher_search_text(d, u, st["topk"], st["doc_chars"]) for d, u in row] for row in raw]
        ev_calls = 0
        ev_visible = 0
        found_in_results = 0
        misses = []
        for q, row, rawrow in zip(qs, shown, raw):
            for s, text, r in zip(q["searches"], row, rawrow):
                if not s.get("found") or not s["sentences"]:
                    continue
                ev_calls += 1
                # ASearcher shows urls: the page must be among them. Search-R1 and verl show titles only: the
                # sentence being visible is the whole test.
                listed = engine != "asearcher" or s["found"] in r[1]
                found_in_results += 1 if listed else 0
                if listed and visible_all(s["sentences"], text, escape=(engine == "verl")):
                    ev_visible += 1
                elif len(misses) < 3:
                    misses.append({"qa": q["id"], "query": s["query"], "sentence": s["sentences"][0], "shown_chars": len(text)})
        report[name] = {"evidence_searches": ev_calls, "visible": ev_visible, "fraction": round(ev_visible / max(1, ev_calls), 4), "misses": misses}
        if engine == "asearcher":
            report[name]["found_in_results"] = found_in_results
        shown_of[name] = shown
    # The scripted gold policy: the oracle's searches with the shipped observations, then its answer; and a wrong one.
    # Its episode must also fit the engine's turn and token limits (stock and shipped) to reach the answer at all.
    id2info = {}
    for path in spec.get("dataset_paths", []):  # train.jsonl and test.jsonl: the training and the evaluation dataset
        id2info.update(load_metadata(path))
    episodes = {name: [] for name in ("stock", "shipped")}
    for name in ("stock", "shipped"):
        for q, row in zip(qs, shown_of[name]):
            turns = [(sr["query"], t) for sr, t in zip(q["searches"], row)]
            if engine == "search-r1":
                episodes[name].append(search_r1_pieces(q["prompt"], turns, q["answer"]))
            elif engine == "verl":
                episodes[name].append(verl_pieces(turns, q["answer"]))
            else:
                episodes[name].append(asearcher_pieces(q["question"], turns, q["answer"]))
    text_of = (lambda p: p[1]) if engine == "asearcher" else (lambda p: p)
    counts = iter(qwen_count([text_of(p) for name in ("stock", "shipped") for ep in episodes[name] for p in ep]))
    for name in ("stock", "shipped"):
        ok = 0
        tokens = []
        for ep in episodes[name]:
            c = [next(counts) for _ in ep]
            tokens.append(sum(c))
            ok += 1 if fits(engine, settings[name], ep, c) else 0
        report[name]["episodes_fit"] = ok
        report[name]["episode_tokens"] = {"p50": sorted(tokens)[len(tokens) // 2], "max": max(tokens)}
    gold, bad = [], []
    for q, ep in zip(qs, episodes["shipped"]):
        for ans, out in ((q["answer"], gold), (wrong(q["answer"]), bad)):
            if engine == "search-r1":
                seq = "".join(ep[:-1]) + think(len(ep) // 2 - 1) + f"<answer> {ans} </answer><|im_end|>"
                out.append(search_r1_select_rm_score_fn(q["data_source"])(solution_str=seq, ground_truth=q["ground_truth"], format_score=0.0))
            elif engine == "verl":
                resp = verl_response_str(ep[:-1] + [think(len(ep) // 2) + f"<answer> {ans} </answer><|im_end|>"])
                out.append(verl_default_compute_score(q["data_source"], resp, q["ground_truth"]))
            else:
                gens = [t for k, t in ep if k == "gen"][:-1] + [f"\n<answer> {ans} </answer>"]
                out.append(asearcher_episode_score(gens, q["id"], id2info))
    report["gold"] = {"n": len(gold), "ones": sum(1 for g in gold if g == 1.0), "min": min(gold), "not_one": [q["id"] for q, g in zip(qs, gold) if g != 1.0][:5]}
    report["wrong"] = {"n": len(bad), "max": max(bad)}
    return report


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(json.dumps(run(json.load(f))))
