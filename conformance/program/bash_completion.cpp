// The bash completion of a CLI11 app, generated from the definitions that
// parse its command line, so that it never lists an option the program does
// not have or misses one it has.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "program/build_info.hpp"
#include "program/program.hpp"

namespace rdmaconf::program {
namespace {

// How an option's value, or a positional argument, is completed.
struct ValueCompletion {
  enum class Kind { kNothing, kWords, kFiles, kFolders };
  Kind kind = Kind::kFiles;
  std::vector<std::string> words;
};

// A word that compgen -W and a single-quoted shell string can carry as it is.
bool plain_word(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_.:/+@%=").find(c) != std::string_view::npos;
  });
}

// CLI11 describes what an option expects in its type name: the type, then
// each validator's description after a ':', e.g. "TEXT:{reference,rdma-core}"
// (IsMember), "UINT:INT in [1 - 64]" (Range), "TEXT:FILE" (ExistingFile).
ValueCompletion value_completion(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  ValueCompletion v;
  if (const auto open = type.find('{'); open != std::string::npos) {
    const auto close = type.find('}', open);
    if (close != std::string::npos) {
      std::istringstream set(type.substr(open + 1, close - open - 1));
      for (std::string w; std::getline(set, w, ',');)
        if (plain_word(w)) v.words.push_back(w);
      if (!v.words.empty()) {
        v.kind = ValueCompletion::Kind::kWords;
        return v;
      }
    }
  }
  const std::string base = type.substr(0, type.find(':'));
  if (type.find("DIR") != std::string::npos) v.kind = ValueCompletion::Kind::kFolders;
  else if (type.find("FILE") != std::string::npos || type.find("PATH") != std::string::npos)
    v.kind = ValueCompletion::Kind::kFiles;
  else if (base == "INT" || base == "UINT" || base == "FLOAT" || base == "NUMBER" || base == "BOOLEAN")
    v.kind = ValueCompletion::Kind::kNothing;
  return v;
}

// The shell command that completes such a value into COMPREPLY.
std::string complete_value(const ValueCompletion& v) {
  switch (v.kind) {
    case ValueCompletion::Kind::kNothing: return ":";
    case ValueCompletion::Kind::kFiles: return "_filedir";
    case ValueCompletion::Kind::kFolders: return "_filedir -d";
    case ValueCompletion::Kind::kWords: break;
  }
  std::string words;
  for (const std::string& w : v.words) words += (words.empty() ? "" : " ") + w;
  return "COMPREPLY=($(compgen -W '" + words + "' -- \"$cur\"))";
}

bool shown(const CLI::Option* o) { return !o->get_group().empty(); }

// One level of the command: the app itself ("") or a subcommand path ("run").
struct Level {
  std::string path;
  const CLI::App* app;
};

void collect(const CLI::App& app, const std::string& path, std::vector<Level>& out) {
  out.push_back({path, &app});
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty() && plain_word(sub->get_name()))
      collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

std::vector<std::string> option_names(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const std::string& s : o.get_snames()) names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) names.push_back("--" + l);
  return names;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : std::string(separator)) + w;
  return s;
}

// "path/word" patterns of a case statement.
std::string patterns(const std::string& path, const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  for (const std::string& w : words) quoted.push_back("\"" + path + "/" + w + "\"");
  return joined(quoted, " | ");
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  const std::string name = app.get_name();
  std::string function = "_";
  for (char c : name) function += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::vector<Level> levels;
  collect(app, "", levels);

  std::ostringstream s;
  s << "# bash completion for " << name << " " << build_info::version() << ", generated from its command-line\n"
    << "# definitions (`" << name << " --bash-completion`); do not edit.\n"
    << function << "() {\n"
    << "  local cur prev words cword split\n"
    << "  _init_completion -s || return\n\n"
    << "  # The subcommand path so far; the value after an option that takes one is skipped.\n"
    << "  local path=\"\" i\n"
    << "  for ((i = 1; i < cword; i++)); do\n"
    << "    case \"$path/${words[i]}\" in\n";
  for (const Level& l : levels) {
    for (const CLI::App* sub : l.app->get_subcommands({}))
      if (!sub->get_group().empty() && plain_word(sub->get_name()))
        s << "      " << patterns(l.path, {sub->get_name()}) << ") path=\"" << (l.path.empty() ? "" : l.path + " ")
          << sub->get_name() << "\" ;;\n";
    std::vector<std::string> valued;
    for (const CLI::Option* o : l.app->get_options(shown))
      if (o->nonpositional() && o->get_items_expected_max() > 0)
        for (const std::string& n : option_names(*o)) valued.push_back(n);
    if (!valued.empty()) s << "      " << patterns(l.path, valued) << ") ((i++)) ;;\n";
  }
  s << "    esac\n"
    << "  done\n\n"
    << "  # The value of the option before the cursor.\n"
    << "  case \"$path/$prev\" in\n";
  for (const Level& l : levels)
    for (const CLI::Option* o : l.app->get_options(shown))
      if (o->nonpositional() && o->get_items_expected_max() > 0)
        s << "    " << patterns(l.path, option_names(*o)) << ") " << complete_value(value_completion(*o))
          << "; return ;;\n";
  s << "  esac\n\n"
    << "  if [[ $cur == -* ]]; then\n"
    << "    case \"$path\" in\n";
  for (const Level& l : levels) {
    std::vector<std::string> names;
    for (const CLI::Option* o : l.app->get_options(shown))
      for (const std::string& n : option_names(*o)) names.push_back(n);
    s << "      \"" << l.path << "\") COMPREPLY=($(compgen -W '" << joined(names, " ") << "' -- \"$cur\")) ;;\n";
  }
  s << "    esac\n"
    << "    return\n"
    << "  fi\n"
    << "  # Else a subcommand, a positional argument, or the options.\n"
    << "  case \"$path\" in\n";
  for (const Level& l : levels) {
    std::vector<std::string> subs, options;
    for (const CLI::App* sub : l.app->get_subcommands({}))
      if (!sub->get_group().empty() && plain_word(sub->get_name())) subs.push_back(sub->get_name());
    const CLI::Option* positional = nullptr;
    for (const CLI::Option* o : l.app->get_options(shown)) {
      if (!o->nonpositional() && !positional) positional = o;
      for (const std::string& n : option_names(*o)) options.push_back(n);
    }
    s << "    \"" << l.path << "\") ";
    if (!subs.empty()) s << "COMPREPLY=($(compgen -W '" << joined(subs, " ") << "' -- \"$cur\"))";
    else if (positional) s << complete_value(value_completion(*positional));
    else s << "COMPREPLY=($(compgen -W '" << joined(options, " ") << "' -- \"$cur\"))";
    s << " ;;\n";
  }
  s << "  esac\n"
    << "}\n"
    << "complete -F " << function << " " << name << "\n";
  return s.str();
}

}  // namespace rdmaconf::program
