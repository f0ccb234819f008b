// Where each SMC-R link-layer rule comes from, in one place.
//
// RFC 7609 states the version 1 LLC messages in App. A.3 (one subsection per
// message) and the CDC message in App. A.4; the link group and its flows are
// §3 and §4. SMC version 2 has no RFC: Linux net/smc (smc_llc.c, smc_llc.h,
// smc_cdc.h, smc_wr.h) is its public reference, and we cite the structure or
// function that states each v2 rule. RoCEv2 framing is the InfiniBand
// Architecture Specification volume 1 (the BTH and extended transport
// headers, chapter 9) with its RoCEv2 annex (A17: UDP destination port 4791).
#pragma once

#include <string_view>

namespace rdmaconf::smcr::cite {

// RFC 7609, SMC-R version 1
inline constexpr std::string_view kLinkGroup = "RFC 7609 §3";
inline constexpr std::string_view kLlcMessages = "RFC 7609 App. A.3";
inline constexpr std::string_view kConfirmLink = "RFC 7609 App. A.3.1";
inline constexpr std::string_view kAddLink = "RFC 7609 App. A.3.2";
inline constexpr std::string_view kAddLinkCont = "RFC 7609 App. A.3.3";
inline constexpr std::string_view kDeleteLink = "RFC 7609 App. A.3.4";
inline constexpr std::string_view kConfirmRkey = "RFC 7609 App. A.3.5";
inline constexpr std::string_view kConfirmRkeyCont = "RFC 7609 App. A.3.6";
inline constexpr std::string_view kDeleteRkey = "RFC 7609 App. A.3.7";
inline constexpr std::string_view kTestLink = "RFC 7609 App. A.3.8";
inline constexpr std::string_view kCdc = "RFC 7609 App. A.4";

// SMC version 2 as Linux net/smc implements it
inline constexpr std::string_view kV2LlcHeader = "SMCv2: smc_llc_hdr (llc_version, length_v2)";
inline constexpr std::string_view kV2LlcTypes = "SMCv2: enum smc_llc_msg_type (0x21-0x29)";
inline constexpr std::string_view kV2AddLinkExt = "SMCv2: smc_llc_msg_add_link_v2_ext";
inline constexpr std::string_view kV2ReqAddLink = "SMCv2: smc_llc_msg_req_add_link_v2";
inline constexpr std::string_view kV2DeleteRkey = "SMCv2: smc_llc_msg_delete_rkey_v2";
inline constexpr std::string_view kLinuxLlcReceive = "Linux net/smc: smc_llc_rx_handler";
inline constexpr std::string_view kLinuxNoRmbeEyecatcher = "Linux net/smc: SMC_LLC_FLAG_NO_RMBE_EYEC";

// InfiniBand / RoCEv2
inline constexpr std::string_view kBth = "IBTA vol. 1 §9.2";
inline constexpr std::string_view kOpcodes = "IBTA vol. 1 §9.2.1";
inline constexpr std::string_view kPadCount = "IBTA vol. 1 §9.2.3";
inline constexpr std::string_view kReth = "IBTA vol. 1 §9.3.2";
inline constexpr std::string_view kAeth = "IBTA vol. 1 §9.3.5";
inline constexpr std::string_view kIcrc = "IBTA vol. 1 §7.8.1";
inline constexpr std::string_view kRoceV2 = "IBTA vol. 1 Annex A17 (RoCEv2)";

}  // namespace rdmaconf::smcr::cite
