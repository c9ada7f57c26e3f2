// The native half of Keras' training API (SPEC §6, docs/training.md): the methods compile, fit,
// evaluate and predict (and save, save_weights, load_weights, get_layer) of Sequential and
// functional models, which hand the model to their Weft implementations in
// stdlib/training.model and stdlib/saving.model (_keras_compile, ...), the two terminal helpers fit's
// progress bar needs, and the file and attribute helpers of the callbacks (stdlib/callbacks.model).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "../eval/args.h"
#include "../eval/suggest.h"
#include "../ops/ops.h"
#include "../values/context.h"
#include "../saved/npy.h"
#include "../spmd/ranks.h"
#include "../values/format.h"
#include "keras.h"

namespace weft {
namespace {

// The arguments of model.NAME(...) checked against its Weft half's parameters (after the model),
// so that a mistake names NAME, never _keras_NAME.
void checkMethodArgs(const std::string& name, const FunctionObj& impl, const Args& a) {
  std::vector<std::string> params;
  for (size_t i = 1; i < impl.params->size(); ++i) params.push_back(symbolName((*impl.params)[i].name));
  if (a.pos.size() > params.size())
    throw WeftError(a.site, name + "() takes at most " + std::to_string(params.size()) + " arguments but " +
                                std::to_string(a.pos.size()) + " were given");
  for (const auto& [k, v] : a.kw) {
    const std::string& key = symbolName(k);
    bool known = false;
    for (const std::string& p : params) known = known || p == key;
    if (known) continue;
    throw WeftError(a.site, unexpectedKeywordMessage(name, key, params));
  }
}

}  // namespace

Value trainingMethod(const std::string& name, const Value& model) {
  const std::string impl = "_keras_" + name;
  return makeBuiltin(name, [impl, name](Interpreter& in, Args& a) {
    Value f = in.preludeValue(impl, a.site);
    if (!f.is(Kind::Function)) throw WeftError(a.site, "internal error: " + impl + " is missing from the prelude");
    checkMethodArgs(name, *f.as<FunctionObj>(), a);
    // A copy named for the method: tracebacks show `fit`.
    auto named = std::make_shared<FunctionObj>(*f.as<FunctionObj>());
    named->name = name;
    f = Value(std::move(named));
    Args fa;
    fa.site = a.site;
    fa.pos.push_back(a.self);
    fa.pos.insert(fa.pos.end(), a.pos.begin(), a.pos.end());
    fa.kw = a.kw;
    return in.call(f, fa);
  }, model);
}

void addTrainingMethods(const std::shared_ptr<ModuleObj>& model) {
  for (const char* name : {"compile", "fit", "evaluate", "predict", "save", "save_weights", "load_weights", "get_layer"})
    model->attrs->set(intern(name), trainingMethod(name, Value(model)));
}

void registerTerminal(Env& env) {
  // Whether the program's standard output is a terminal (Python's sys.stdout.isatty()): fit draws
  // its progress bar in place there, and prints one line per epoch elsewhere.
  env.set(intern("isatty"), makeBuiltin("isatty", [](Interpreter& in, Args& a) {
            ArgReader r(a, "isatty", {});
            bool tty = &in.out() == &std::cout && ::isatty(STDOUT_FILENO) == 1;
            return Value(Tensor::scalar<bool>(tty));
          }));
  // _overwrite_line(text): "\r" and text, flushed: redraws the line the cursor is on (fit's
  // progress bar). The language's strings have no "\r" escape (SPEC §1).
  env.set(intern("_overwrite_line"), makeBuiltin("_overwrite_line", [](Interpreter& in, Args& a) {
            ArgReader r(a, "_overwrite_line", {"text"});
            in.out() << '\r' << r.str(0);
            in.out().flush();
            std::fflush(stdout);
            return Value();
          }));
  // _planning(): whether the program runs on shapes alone (weft check, docs/layouts.md), where
  // fit traces its train step once per epoch and has no loss values to check.
  env.set(intern("_planning"), makeBuiltin("_planning", [](Interpreter&, Args& a) {
            ArgReader r(a, "_planning", {});
            return Value(Tensor::scalar<bool>(ops::shapesOnly()));
          }));
}

namespace {

// _format_filepath(callback, template, epoch, logs): Keras' filepath.format(epoch=..., **logs),
// "ckpt/{epoch:02d}-{val_loss:.2f}"; `{{` and `}}` are braces. A name that is neither epoch nor
// a key of logs is an error naming the callback.
Value formatFilepath(Interpreter&, Args& a) {
  ArgReader r(a, "_format_filepath", {"callback", "template", "epoch", "logs"});
  std::string who = r.str(0), text = r.str(1), out;
  if (!r.get(3).is(Kind::Dict)) r.fail(3, "a dict");
  auto* logs = r.get(3).as<DictObj>();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') throw WeftError(a.site, who + ": filepath '" + text + "' has a '}' without its '{'");
    if (c != '{') {
      out += c;
      continue;
    }
    size_t end = text.find('}', i);
    if (end == std::string::npos) throw WeftError(a.site, who + ": filepath '" + text + "' has a '{' without its '}'");
    std::string field = text.substr(i + 1, end - i - 1), spec;
    if (size_t colon = field.find(':'); colon != std::string::npos) {
      spec = field.substr(colon + 1);
      field.resize(colon);
    }
    Value v;
    if (field == "epoch") {
      v = r.get(2);
    } else if (Value* found = logs->find(makeStr(field))) {
      v = *found;
    } else {
      std::string known = "epoch";
      for (const auto& [k, x] : logs->entries) known += ", " + toStr(k);
      throw WeftError(a.site, who + ": filepath '" + text + "' names '" + field + "', which is not among the values fit reports (" + known + ")");
    }
    out += spec.empty() ? toStr(v) : formatWithSpec(v, spec);
    i = end;
  }
  return makeStr(out);
}

// _write_text(callback, path, text, append): writes (or appends) text to a regular file, making
// its parent folders, as CSVLogger does.
Value writeFile(Args& a) {
  ArgReader r(a, "_write_text", {"callback", "path", "text", "append"});
  std::string who = r.str(0), path = r.str(1), text = r.str(2);
  auto fail = [&](const std::string& why) -> Value { throw WeftError(a.site, who + ": cannot write '" + path + "': " + why); };
  saved::makeParentFolders(path);
  int flags = O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | (r.flag(3) ? O_APPEND : O_TRUNC);
  int fd = ::open(path.c_str(), flags, 0666);
  if (fd < 0) return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return fail(why);
    }
    rest.remove_prefix(size_t(n));
  }
  if (::close(fd) != 0) return fail(std::strerror(errno));
  return Value();
}

Value writeText(Interpreter&, Args& a) {
  if (!writesFiles()) return Value();
  // Under mpirun rank 0 writes, and every rank waits for it (spmd/ranks.h).
  if (spmd::rankIndex() == 0) writeFile(a);
  spmd::waitForRanks();
  return Value();
}

}  // namespace

void registerCallbackHelpers(Env& env) {
  env.set(intern("_format_filepath"), makeBuiltin("_format_filepath", formatFilepath));
  env.set(intern("_write_text"), makeBuiltin("_write_text", writeText));
  // _file_has_text(path): whether path is a regular file holding something (CSVLogger's append
  // writes no second header).
  env.set(intern("_file_has_text"), makeBuiltin("_file_has_text", [](Interpreter&, Args& a) {
            ArgReader r(a, "_file_has_text", {"path"});
            struct stat st;
            bool has = ::stat(r.str(0).c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
            return Value(Tensor::scalar<bool>(has));
          }));
  // _attach_model(callback, model): callback.model, as Keras' set_model gives it, without
  // adopting the model (its variables keep their paths; a callback does not own its model).
  env.set(intern("_attach_model"), makeBuiltin("_attach_model", [](Interpreter&, Args& a) {
            ArgReader r(a, "_attach_model", {"callback", "model"});
            if (!r.get(0).is(Kind::Module)) r.fail(0, "a module");
            r.get(0).as<ModuleObj>()->attrs->set(intern("model"), r.get(1));
            return Value();
          }));
}

}  // namespace weft
