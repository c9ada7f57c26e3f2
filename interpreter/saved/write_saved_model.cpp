// Writes a saved model's folder atomically (saved_model.h): everything goes into a temporary
// folder beside the destination, which is then swapped into place with one rename.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "../../grammar/diagnostics.h"
#include "../graph/text.h"
#include "../spmd/ranks.h"
#include "npy.h"
#include "path_safety.h"
#include "saved_model.h"

namespace fs = std::filesystem;

namespace weft::saved {
namespace {

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw WeftError("cannot save '" + path.string() + "': write failed");
}

// A fresh name beside `dir`: ".NAME.tmp-XXXXXX".
fs::path besideName(const fs::path& dir, const char* what) {
  static std::mt19937_64 gen{std::random_device{}()};
  const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (int tries = 0; tries < 100; ++tries) {
    std::string suffix;
    for (int i = 0; i < 8; ++i) suffix += digits[gen() % 36];
    fs::path p = dir.parent_path() / ("." + dir.filename().string() + "." + what + "-" + suffix);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return p;
  }
  throw WeftError("cannot save '" + dir.string() + "': no free temporary name beside it");
}

// Whether what is at `dir` may be replaced: an empty folder or a saved model.
void checkReplaceable(const fs::path& dir) {
  std::error_code ec;
  fs::file_status st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw WeftError("cannot save to '" + dir.string() + "': it exists and is not a folder");
  if (fs::is_empty(dir, ec)) return;
  if (!fs::is_regular_file(fs::symlink_status(dir / kManifestFile, ec)))
    throw WeftError("cannot save to '" + dir.string() + "': it is a folder that holds no saved model (no " +
                    kManifestFile + "); saving replaces a folder only when it is empty or a saved model");
}

// The model's folder, written beside it and renamed into place.
void writeModelFiles(const std::string& dirText, const SavedModel& model) {
  fs::path dir = fs::path(dirText).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "saved/" names "saved"
  if (dir.empty() || dir.filename() == "." || dir.filename() == "..")
    throw WeftError("cannot save to '" + dirText + "': name a folder to create");
  std::error_code ec;
  if (!dir.has_parent_path()) dir = fs::path(".") / dir;
  makeParentFolders(dir.string());  // the model's own folder still appears in one rename
  checkReplaceable(dir);
  if (std::string why = controlTextIn(model.manifest); !why.empty())
    throw WeftError("cannot save to '" + dirText + "': " + why);
  // What load would refuse is never written.
  const Manifest& m = model.manifest;
  auto tooLarge = [&](const std::string& what, size_t bytes, size_t limit) {
    if (bytes > limit)
      throw WeftError("cannot save to '" + dirText + "': " + what + " would be " + std::to_string(bytes) +
                      " bytes, more than the " + std::to_string(limit >> 20) + " MiB a saved model's reader takes");
  };
  std::string manifestText = writeManifest(m);
  tooLarge("its manifest", manifestText.size(), kMaxManifestBytes);
  try {  // every other rule of the reader (its count of entries, say), as the reader applies it
    readManifest(manifestText, kManifestFile);
  } catch (const WeftError& e) {
    throw WeftError("cannot save to '" + dirText + "': load would refuse its manifest: " + e.message);
  }
  std::vector<std::string> graphTexts;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    graphTexts.push_back(graph::printText(model.graphs[i]));
    tooLarge("the graph of " + m.functions[i].name, graphTexts.back().size(), kMaxGraphBytes);
  }

  fs::path tmp = besideName(dir, "tmp");
  if (!fs::create_directory(tmp, ec)) throw WeftError("cannot save to '" + dirText + "': " + ec.message());
  try {
    fs::create_directory(tmp / "variables");
    fs::create_directory(tmp / "graphs");
    for (size_t i = 0; i < m.variables.size(); ++i) writeNpy((tmp / m.variables[i].file).string(), model.variables[i]);
    for (size_t i = 0; i < m.functions.size(); ++i) writeText(tmp / m.functions[i].file, graphTexts[i]);
    for (const auto& [name, bytes] : model.extraFiles) {
      if (std::string why = relativeNameProblem(name); !why.empty())
        throw WeftError("cannot save to '" + dirText + "': file name '" + name + "' " + why);
      fs::create_directories((tmp / name).parent_path());
      writeText(tmp / name, bytes);
    }
    writeText(tmp / kManifestFile, manifestText);
    if (fs::exists(fs::symlink_status(dir, ec))) {
      // One rename swaps the two folders (Linux's RENAME_EXCHANGE); where the file system cannot,
      // the old folder is moved aside first, so that a reader sees the old model or the new one.
      if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
        fs::path old = besideName(dir, "old");
        fs::rename(dir, old);
        try {
          fs::rename(tmp, dir);
        } catch (...) {
          fs::rename(old, dir);
          throw;
        }
        tmp = old;
      }
      fs::remove_all(tmp, ec);  // the old model, now at the temporary name
    } else {
      fs::rename(tmp, dir);
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw WeftError("cannot save to '" + dirText + "': " + e.code().message());
  } catch (const WeftError& e) {  // a file that could not be written: named as inside dir
    fs::remove_all(tmp, ec);
    std::string message = e.message;
    for (size_t at = message.find(tmp.string()); at != std::string::npos; at = message.find(tmp.string(), at))
      message.replace(at, tmp.string().size(), dir.string());
    throw WeftError(message + "; nothing at '" + dirText + "' was changed");
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace

void writeSavedModel(const std::string& dirText, const SavedModel& model) {
  // Under mpirun every rank puts the values together (an all-gather, spmd/ranks.h); rank 0
  // writes, and the others wait for it, so that the model is there for any of them to load.
  for (const Tensor& v : model.variables)
    if (!v.isAbstract()) (void)v.raw();
  if (spmd::rankIndex() == 0) writeModelFiles(dirText, model);
  spmd::waitForRanks();
}

}  // namespace weft::saved
