// minimize (minimize.hpp).
#include "wirefuzz/minimize.hpp"

#include <string>

#include "wirefuzz/case_text.hpp"
#include "wirefuzz/mutator.hpp"

namespace rdmaconf::conformance::wirefuzz {

Case minimize(Case cur, const std::function<bool(const Case&)>& keeps, const std::function<bool()>& budget_left) {
  auto attempt = [&](const Case& cand) {
    if (!budget_left() || !keeps(cand)) return false;
    cur = cand;
    return true;
  };
  auto reads = [](const Step& st) { return st.kind == StepKind::kExpect; };
  // Until a pass changes nothing: a smaller field change can make a
  // message droppable that was not before (an MSN made 0 needs no message
  // before it to be out of range).
  for (bool changed = true; changed && budget_left();) {
    const std::string before = case_text(cur);
    const auto sends = send_steps(cur);
    for (auto i = sends.rbegin(); i != sends.rend() && budget_left(); ++i) {
      Case cand = cur;
      auto at = cand.steps.erase(cand.steps.begin() + static_cast<std::ptrdiff_t>(*i));
      // The read after the dropped message goes too when another read precedes it.
      if (at != cand.steps.begin() && at != cand.steps.end() && reads(*at) && reads(*(at - 1))) cand.steps.erase(at);
      attempt(cand);
    }
    const std::size_t tail = liveness_step(cur);
    for (std::size_t i = 0; i < tail && budget_left(); ++i) {
      if (cur.steps[i].kind != StepKind::kSend && cur.steps[i].kind != StepKind::kHandshake) continue;
      for (std::size_t k = cur.steps[i].args.size(); k-- > 0 && budget_left();) {
        Case cand = cur;
        cand.steps[i].args.erase(cand.steps[i].args.begin() + static_cast<std::ptrdiff_t>(k));
        attempt(cand);
      }
      // Smaller numbers: zero (a field's lower edge) first, else halving
      // while the finding stays; offsets from advertised values towards zero.
      for (std::size_t k = 0; k < cur.steps[i].args.size() && budget_left(); ++k) {
        if (cur.steps[i].args[k].value.kind == Value::Kind::kNumber && cur.steps[i].args[k].value.number > 0) {
          Case zero = cur;
          zero.steps[i].args[k].value.number = 0;
          if (attempt(zero)) continue;
        }
        for (int tries = 0; tries < 12 && budget_left(); ++tries) {
          Case cand = cur;
          Value& v = cand.steps[i].args[k].value;
          if (v.kind == Value::Kind::kNumber && v.number > 1) v.number /= 2;
          else if (v.kind == Value::Kind::kVariable && (v.offset > 1 || v.offset < -1)) v.offset /= 2;
          else break;
          if (!attempt(cand)) break;
        }
      }
    }
    changed = case_text(cur) != before;
  }
  return cur;
}

}  // namespace rdmaconf::conformance::wirefuzz
