#include "rdmap/error_codes.hpp"

namespace rdmaconf::rdmap {

std::span<const ErrorRow> rdmap_error_rows() { return kRdmapErrorRows; }
std::span<const ErrorRow> ddp_error_rows() { return ddp::kDdpErrorRows; }
std::span<const ErrorRow> llp_error_rows() { return kLlpErrorRows; }

const ErrorRow* find_error(TerminateCode code) {
  for (std::span<const ErrorRow> rows : {rdmap_error_rows(), ddp_error_rows(), llp_error_rows()}) {
    for (const ErrorRow& row : rows) {
      if (row.triple.layer != code.layer || row.triple.etype != code.etype) continue;
      if (row.any_code || row.triple.code == code.code) return &row;
    }
  }
  return nullptr;
}

std::string_view layer_name(Layer layer) {
  switch (layer) {
    case Layer::kRdmap:
      return "RDMAP";
    case Layer::kDdp:
      return "DDP";
    case Layer::kLlp:
      return "LLP";
  }
  return "reserved layer";
}

}  // namespace rdmaconf::rdmap
